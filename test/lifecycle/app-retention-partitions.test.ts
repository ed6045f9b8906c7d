import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { startRetentionPruner } from '../../src/lifecycle/retention-pruner.js';
import { RetentionRepository } from '../../src/storage/retention-repository.js';
import { timePartitions } from '../../src/storage/postgres/partition-drops.js';
import { createPartitionsAhead, partitionsOf } from '../../src/storage/postgres/time-partitions.js';

const silent = pino({ level: 'silent' });
const JANUARY = Date.UTC(2026, 0, 10);

describe.runIf(dialects.includes('postgres'))('per-app retention and month drops (postgres)', () => {
  let app: TestApp;
  let auth: string;
  let appId: number;
  const db = () => app.context.storage.db;
  const names = async (kind: 'messages' | 'raw') => ((await partitionsOf(db(), kind)) ?? []).map((p) => p.name);
  const count = async (table: string, serial: string) =>
    Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where module_serial = ${serial}`.execute(db())).rows[0]!.n);
  const counters = () => db().selectFrom('devices').select(['serial', 'msgs', 'losts', 'alerts']).orderBy('serial').execute();
  const choose = (query: string) =>
    app.server.inject({ method: 'POST', url: `/iot/developers/apps/retention.json?idApp=${appId}&${query}`, headers: { authorization: auth } });

  beforeAll(async () => {
    app = await startApp('postgres');
    await importCatalog(app);
    const developer = await createDeveloper(app);
    auth = developer.auth;
    const account = await app.context.accounts.byEmail(developer.email);
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    await createPartitionsAhead(db(), JANUARY, 0);
    // Three uplinks of each module sent and received in January.
    for (const serial of ['C0FE', '0ACE']) {
      for (let i = 0; i < 3; i++) await uplink(app, serial, frames.keepAlive(i), Math.floor(JANUARY / 1000) + i * 60);
      await sql`update messages set when_ms = ${JANUARY} + id where module_serial = ${serial}`.execute(db());
      await sql`update raw_messages set received_at = ${JANUARY} + id where module_serial = ${serial}`.execute(db());
    }
    appId = (await app.context.apps.save(account.id, { name: 'archive' })).id;
    await app.context.apps.attach(account.id, appId, ['C0FE']);
  });
  afterAll(() => app.close());

  it("keeps a month holding rows an app's choice keeps, prunes the rest row by row, and drops it once the choice goes", async () => {
    // The app keeps its modules' messages forever; raw messages follow the default.
    expect((await choose('messages_days=0')).statusCode).toBe(200);
    const before = await counters();
    const pruner = startRetentionPruner(new RetentionRepository(db()), { messagesDays: 30, rawDays: 30, alertsDays: 0 }, silent, { batch: 2, partitions: timePartitions(db()) });
    // Messages: January stays for C0FE; 0ACE's January messages go row by row. Raw: the January month whole.
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 6, alerts: 0, partitions: 1 });
    expect(await names('messages')).toContain('messages_y2026m01');
    expect(await names('raw')).not.toContain('raw_messages_y2026m01');
    expect([await count('messages', 'C0FE'), await count('messages', '0ACE')]).toEqual([3, 0]);

    // A shorter app choice than the default no longer keeps the month: it goes whole.
    expect((await choose('messages_days=7')).json()).toMatchObject({ messages_days: 7, raw_days: null });
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 0, alerts: 0, partitions: 1 });
    expect(await names('messages')).not.toContain('messages_y2026m01');
    expect(await count('messages', 'C0FE')).toBe(0);
    expect(await counters()).toEqual(before);
    await pruner.stop();
  });
});
