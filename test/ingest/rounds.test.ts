import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, hex } from '../helpers/uplinks.js';
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

  it('takes other stations’ copies of an uplink in its round: one raw message with every reception and the best SNR, stored by one statement', async () => {
    const time = 1_805_000_000;
    const copies = serials.flatMap((device, m) => [
      ...STATIONS.map((station, s) => ({ device, time, data: frames.tempHigh(1), seqNumber: 200 + m, station, rssi: -110, snr: [10, 12, 11][s] })),
      // the second station again, better heard: a replay that still raises its reception and the raw message's SNR
      { device, time, data: frames.tempHigh(1), seqNumber: 200 + m, station: STATIONS[1], rssi: -100, snr: 13 },
    ]);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    // Received in one turn of the event loop: one batch.
    const results = await Promise.all(copies.map((uplink) => app.context.ingest.receive(uplink)));
    const texts = sent.mock.calls.map(([query]) => String((query as { text?: string }).text ?? query));
    sent.mockRestore();
    expect(results.map((r) => r.uplink)).toEqual(serials.flatMap(() => ['new', 'duplicate', 'duplicate', 'replay']));
    expect(new Set(results.map((r) => r.rawId)).size).toBe(MODULES);
    if (dialect === 'postgres') {
      // Copies in the first uplink's round: a statement serves them all, instead of one round per station.
      expect(texts.filter((text) => text.startsWith('WITH r AS (INSERT INTO raw_messages'))).toHaveLength(1);
      expect(texts.filter((text) => text.startsWith('INSERT INTO rinfos'))).toHaveLength(1);
    }
    const db = app.context.storage.db;
    const raws = await db.selectFrom('raw_messages').select(['id', 'module_serial', 'snr']).where('time_s', '=', time).orderBy('module_serial').execute();
    expect(raws.map((r) => [r.module_serial, r.snr])).toEqual(serials.map((serial) => [serial, 13]));
    const rinfos = await db.selectFrom('rinfos').select(['raw_id', 'tap', 'snr']).where('raw_id', 'in', raws.map((r) => r.id)).orderBy('raw_id').orderBy('tap').execute();
    expect(rinfos.map(({ tap, snr }) => [tap, snr])).toEqual(serials.flatMap(() => [['A001', 10], ['A002', 13], ['A003', 11]]));
    expect(await db.selectFrom('messages').select('id').where('time_s', '=', time).execute()).toHaveLength(MODULES);
  });

  it('applies children’s uplinks arriving at once: a child created on first mention, its period and dates written, the gateway seen, repetitions found', async () => {
    const time = 1_810_000_000;
    // Keep-alives read differently in UDM22: the modules speaking UDM23.
    const modules = generatedModules(MODULES).filter((m) => m.protocol === 'UDM23').map((m) => m.serial);
    const wave = (seq: number, data: (serial: string) => string) =>
      Promise.all(modules.map((device, m) => post({ device, time: time + seq, data: data(device), seqNumber: 1000 + 10 * m + seq, station: 'B001', rssi: -100, snr: 8 })));
    // On PostgreSQL the children first mentioned in a round are created together, not one statement
    // each, and the devices' state is written with the messages, not by a statement of its own.
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const first = await wave(0, () => frames.keepAlive(1, 1, 2));
    const texts = sent.mock.calls.map(([query]) => String((query as { text?: string }).text ?? query));
    sent.mockRestore();
    expect(first.map((a) => a.body.frame)).toEqual(modules.map(() => 'message'));
    if (dialect === 'postgres') {
      expect(texts.filter((text) => /^insert into "?devices"?/i.test(text)).length).toBeLessThan(modules.length);
      expect(texts.filter((text) => /^update "?devices"?/i.test(text))).toEqual([]);
    }
    const db = app.context.storage.db;
    const lostBefore = async () =>
      new Map((await db.selectFrom('devices').select(['module_serial', 'losts']).where('module_serial', 'in', modules).where('idx', '=', 0).execute()).map((d) => [d.module_serial, d.losts]));
    const before = await lostBefore();
    // Child 1 now exists: its look-up goes ahead with the raw message, like the repetitions' below.
    // One sequence number skipped: an uplink lost, counted on the gateway with its state.
    const second = await wave(2, () => frames.keepAlive(2, 1, 3));
    expect(second.map((a) => a.body.frame)).toEqual(modules.map(() => 'message'));
    // The same frame again with its retry bit set (and its own counter): a repetition, no message.
    const again = await wave(3, () => hex(0x80 | 3, ...Buffer.from(frames.keepAlive(2, 1, 3), 'hex').subarray(1)));
    expect(again.map((a) => a.body.frame)).toEqual(modules.map(() => 'repetition'));

    const devices = await db
      .selectFrom('devices')
      .select(['module_serial', 'idx', 'msgs', 'losts', 'period_s', 'firstseen', 'lastseen'])
      .where('module_serial', 'in', modules)
      .where('idx', 'in', [0, 1])
      .orderBy('module_serial')
      .orderBy('idx')
      .execute();
    const messages = await db.selectFrom('messages').select(['module_serial', 'when_ms']).where('time_s', '>=', time).execute();
    expect(messages).toHaveLength(2 * modules.length);
    for (const serial of modules) {
      const [gateway, child] = devices.filter((d) => d.module_serial === serial);
      const newest = Math.max(...messages.filter((m) => m.module_serial === serial).map((m) => m.when_ms));
      expect(child).toMatchObject({ idx: 1, msgs: 2, losts: 0, period_s: 3 * 3600, lastseen: newest });
      expect(child.firstseen).toBeLessThan(newest);
      // The gateway forwarded both: seen, but neither message nor period is its own.
      expect(gateway).toMatchObject({ idx: 0, losts: before.get(serial)! + 1, lastseen: newest, period_s: null });
    }
  });

  it('raises and ends the alerts of watched modules arriving at once: one each, counted, named, queued for the apps', async () => {
    const db = app.context.storage.db;
    const dev = await createDeveloper(app, 'rounds@example.com');
    const { id: accountId } = await db.selectFrom('accounts').select('id').where('email', '=', dev.email).executeTakeFirstOrThrow();
    await db.updateTable('modules').set({ account_id: accountId }).where('serial', 'in', serials).execute();
    await db.updateTable('devices').set({ watched: 1, name: sql<string>`'Pump ' || serial` }).where('module_serial', 'in', serials).execute();
    // Every other module is attached to an app with a callback: its alerts are queued, the others' are not.
    const { id: appId } = await db
      .insertInto('apps')
      .values({ account_id: accountId, name: 'hooks', description: '', callback_url: 'http://127.0.0.1:9/hook', key: 'k', secret: 's', created_at: 0, reftime: null, watch_period_s: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const hooked = serials.filter((_, m) => m % 2 === 0);
    await db.insertInto('app_modules').values(hooked.map((module_serial) => ({ app_id: appId, module_serial, attached_at: 0 }))).execute();
    const time = 1_820_000_000;
    const wave = (seq: number, data: string) =>
      Promise.all(serials.map((device, m) => post({ device, time: time + seq, data, seqNumber: 5000 + 10 * m + seq, station: 'C001', rssi: -100, snr: 8 })));

    // Battery low twice (the second raises nothing: one open alert per kind), then battery OK.
    for (const [seq, data] of [[0, frames.batteryLow(1)], [1, frames.batteryLow(2)], [2, frames.batteryOk(3)]] as const) {
      expect((await wave(seq, data)).map((a) => a.body.frame)).toEqual(serials.map(() => 'message'));
    }
    const alerts = await db.selectFrom('alerts').selectAll().where('module_serial', 'in', serials).orderBy('module_serial').execute();
    expect(alerts.map((a) => a.module_serial)).toEqual(serials);
    const firsts = await db.selectFrom('messages').select(['id', 'module_serial', 'when_ms']).where('time_s', '=', time).execute();
    const lasts = await db.selectFrom('messages').select(['module_serial', 'when_ms']).where('time_s', '=', time + 2).execute();
    for (const alert of alerts) {
      const raisedBy = firsts.find((m) => m.module_serial === alert.module_serial)!;
      expect(alert).toMatchObject({ account_id: accountId, kind: 'battery_low', message_id: raisedBy.id, raised_at: raisedBy.when_ms, email_pending: 0 });
      expect(alert.ended_at).toBe(lasts.find((m) => m.module_serial === alert.module_serial)!.when_ms);
      expect(alert.end_message).toMatch(/battery/i);
    }
    const devices = await db.selectFrom('devices').select(['module_serial', 'alerts']).where('module_serial', 'in', serials).where('idx', '=', 0).execute();
    expect(devices.every((d) => d.alerts === 1)).toBe(true);
    const queued = await db.selectFrom('deliveries').innerJoin('alerts', 'alerts.id', 'deliveries.alert_id').select('alerts.module_serial').where('deliveries.app_id', '=', appId).execute();
    expect(queued.map((d) => d.module_serial).sort()).toEqual(hooked);
    // What the API shows: each alert with its own device's serial and name.
    const listed = (await app.server.inject({ method: 'GET', url: '/iot/developers/alerts.json?limit=100', headers: { authorization: dev.auth } })).json() as { device: string; name: string | null }[];
    expect(listed.map((a) => [a.device, a.name]).sort()).toEqual(serials.map((serial) => [serial, `Pump ${serial}`]));
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

  it('runs a job’s twins (same key, same twin) in that job’s round, in their order, whatever comes between them', async () => {
    const calls: string[][] = [];
    const echo: BatchedStatement<string, string> = {
      run: async (_trx, args) => {
        calls.push(args);
        return args;
      },
    };
    const group = new GroupCommit(app.context.storage.db, { maxBatch: 16, concurrency: 1, isRejection: () => false, rounds: true });
    const blocker = group.run('0', async () => {});
    const jobs = [['a', 'x'], ['a', 'y'], ['a', 'x'], ['b', 'x'], ['a', undefined], ['a', 'y']] as const;
    await Promise.all(jobs.map(([key, twin], i) => group.run(key, (_trx, round) => round!.add(echo, `${key}${i}`), twin)));
    await blocker;
    // round 1: a/x with its twin, and b; round 2: a/y with its twin; round 3: the a without one
    expect(calls).toEqual([['a0', 'a2', 'b3'], ['a1', 'a5'], ['a4']]);
  });
});
