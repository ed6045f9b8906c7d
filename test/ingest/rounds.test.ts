import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames } from '../helpers/uplinks.js';
import { GroupCommit } from '../../src/ingest/group-commit.js';
import type { BatchedStatement } from '../../src/ingest/round.js';
import { catalogCsv, generatedModules } from '../../src/simulator/fleet.js';

const MODULES = 12;
const STATIONS = ['A001', 'A002', 'A003'];

describe.each(dialects)('ingest batches (%s)', (dialect) => {
  let app: TestApp;
  let serials: string[];
  beforeAll(async () => {
    app = await startApp(dialect);
    await app.context.catalog.import(catalogCsv(generatedModules(MODULES)));
    serials = (await app.context.storage.db.selectFrom('modules').select('serial').orderBy('serial').execute()).map((r) => r.serial);
  });
  afterAll(() => app.close());

  const post = async (payload: object) => {
    const answer = await app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload });
    return { status: answer.statusCode, body: answer.json() as { uplink?: string; frame?: string } };
  };

  it('gives each uplink arriving at once from many modules and stations one raw message, its receptions and one message', async () => {
    const time = 1_800_000_000;
    const callbacks = serials.flatMap((device, m) => [
      // (event frames read the same in UDM22 and UDM23) the first uplink heard by three stations, one of them twice (a replay), then the module's next uplink
      ...STATIONS.map((station) => ({ device, time, data: frames.tempHigh(1), seqNumber: 100 + m, station, rssi: -110, snr: 10 + STATIONS.indexOf(station) })),
      { device, time, data: frames.tempHigh(1), seqNumber: 100 + m, station: STATIONS[1], rssi: -110, snr: 11 },
      { device, time: time + 1, data: frames.batteryLow(2), seqNumber: 101 + m, station: STATIONS[0], rssi: -100, snr: 5 },
    ]);
    const answers = await Promise.all([...callbacks.map(post), post({ device: 'FFFF0000', time, data: frames.keepAlive(1), seqNumber: 1 })]);
    expect(answers.at(-1)!.status).toBe(404);
    const outcomes = answers.slice(0, -1).map((a) => `${a.status} ${a.body.uplink}`);
    const count = (what: string) => outcomes.filter((o) => o === what).length;
    expect([count('200 new'), count('200 duplicate'), count('200 replay')]).toEqual([2 * MODULES, 2 * MODULES, MODULES]);

    const db = app.context.storage.db;
    for (const serial of serials) {
      const raws = await db.selectFrom('raw_messages').select(['id', 'snr', 'seq_number']).where('module_serial', '=', serial).orderBy('seq_number').execute();
      expect(raws.map((r) => r.snr)).toEqual([12, 5]);
      const rinfos = await db.selectFrom('rinfos').select(['raw_id', 'tap']).where('raw_id', 'in', raws.map((r) => r.id)).orderBy('tap').execute();
      expect(rinfos.filter((r) => r.raw_id === raws[0].id).map((r) => r.tap)).toEqual(STATIONS);
      expect(rinfos.filter((r) => r.raw_id === raws[1].id)).toHaveLength(1);
      const messages = await db.selectFrom('messages').select(['type', 'when_ms', 'raw_id']).where('module_serial', '=', serial).orderBy('id').execute();
      expect(messages.map((m) => m.raw_id)).toEqual(raws.map((r) => r.id));
      expect(messages[1].when_ms).toBeGreaterThan(messages[0].when_ms);
      const device = await db.selectFrom('devices').select(['msgs', 'losts']).where('module_serial', '=', serial).where('idx', '=', 0).executeTakeFirstOrThrow();
      expect(device).toEqual({ msgs: 2, losts: 0 });
      const module = await db.selectFrom('modules').select(['last_seq', 'last_time_s', 'last_cpt']).where('serial', '=', serial).executeTakeFirstOrThrow();
      expect(module).toEqual({ last_seq: 101 + serials.indexOf(serial), last_time_s: time + 1, last_cpt: 2 });
    }
  });

  it('runs jobs of different keys side by side and merges what they ask of a batched statement, a key’s later jobs in later rounds', async () => {
    const calls: string[][] = [];
    const echo: BatchedStatement<string, string> = {
      run: async (_trx, args) => {
        calls.push(args);
        return args.map((arg) => arg.toUpperCase());
      },
    };
    const group = new GroupCommit(app.context.storage.db, { maxBatch: 16, concurrency: 1, isRejection: () => false, rounds: true });
    const blocker = group.run('0', async () => {});
    const keys = ['b', 'a', 'c', 'a'];
    const results = await Promise.all(
      keys.map((key, i) =>
        group.run(key, async (_trx, round) => {
          const first = await round!.add(echo, `${key}${i}-1`);
          return [first, await round!.add(echo, `${key}${i}-2`)];
        }),
      ),
    );
    await blocker;
    expect(results).toEqual(keys.map((key, i) => [`${key}${i}-1`.toUpperCase(), `${key}${i}-2`.toUpperCase()]));
    // round 1: a (first), b, c — each statement once for all three; round 2: the second a
    expect(calls).toEqual([['a1-1', 'b0-1', 'c2-1'], ['a1-2', 'b0-2', 'c2-2'], ['a3-1'], ['a3-2']]);
  });
});
