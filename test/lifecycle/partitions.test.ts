import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { startRetentionPruner } from '../../src/lifecycle/retention-pruner.js';
import { RetentionRepository } from '../../src/storage/retention-repository.js';
import { resetRegistration } from '../../src/storage/registration-reset.js';
import { timePartitions } from '../../src/storage/postgres/partition-drops.js';
import { createPartitionsAhead, monthStart, partitionsOf } from '../../src/storage/postgres/time-partitions.js';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });
const JANUARY = Date.UTC(2026, 0, 10);
const FEBRUARY = Date.UTC(2026, 1, 10);

describe.runIf(dialects.includes('postgres'))('time partitions (postgres)', () => {
  let app: TestApp;
  const db = () => app.context.storage.db;
  const names = async (kind: 'messages' | 'raw') => ((await partitionsOf(db(), kind)) ?? []).map((p) => p.name);
  const count = async (table: string, where = sql`true`) =>
    Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where ${where}`.execute(db())).rows[0]!.n);
  const counters = (serial: string) => db().selectFrom('devices').select(['msgs', 'losts', 'alerts']).where('serial', '=', serial).executeTakeFirstOrThrow();
  /** Three uplinks of the module sent (network time) and received in the month of `at`, one now. */
  const history = async (serial: string, at: number) => {
    for (let i = 0; i < 3; i++) await uplink(app, serial, frames.keepAlive(i), Math.floor(at / 1000) + i * 60);
    await sql`update messages set when_ms = ${at} + id where module_serial = ${serial}`.execute(db());
    await sql`update raw_messages set received_at = ${at} + id where module_serial = ${serial}`.execute(db());
    await uplink(app, serial, frames.keepAlive(3), Math.floor(Date.now() / 1000));
  };

  beforeAll(async () => {
    app = await startApp('postgres');
    await importCatalog(app);
    const { email } = await createDeveloper(app);
    const account = await app.context.accounts.byEmail(email);
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    await createPartitionsAhead(db(), JANUARY, 1);
    await history('C0FE', JANUARY);
    await history('0ACE', FEBRUARY);
  });
  afterAll(() => app.close());

  it('partitions messages by reception month and raw messages by network month, with a default partition', async () => {
    const messages = await names('messages');
    expect(messages).toEqual(expect.arrayContaining(['messages_y2026m01', 'messages_y2026m02', 'messages_default']));
    expect(messages.at(-1)).toBe('messages_default');
    const { rows } = await sql<{ part: string; n: string }>`select tableoid::regclass::text as part, count(*) as n from raw_messages group by 1 order by 1`.execute(db());
    expect(rows.map((r) => r.part)).toContain('raw_messages_y2026m01');
    expect(await count('raw_messages_y2026m01')).toBe(3);
    expect(await count('messages_y2026m02')).toBe(3);
    // Today's uplinks land in this month's partition, made by the migration or maintenance.
    const current = `messages_y${new Date().getUTCFullYear()}m${String(new Date().getUTCMonth() + 1).padStart(2, '0')}`;
    expect(await count(current)).toBe(2);
  });

  it('makes the current month and the ones ahead, once, and refuses a month whose rows sit in the default partition', async () => {
    const later = monthStart(Date.now(), 12);
    const first = await createPartitionsAhead(db(), later, 3);
    expect(first.created).toHaveLength(8);
    expect(await names('raw')).toContain(`raw_messages_y${new Date(later).getUTCFullYear()}m${String(new Date(later).getUTCMonth() + 1).padStart(2, '0')}`);
    expect((await createPartitionsAhead(db(), later, 3)).created).toEqual([]);
    // A row of a month nobody made ahead goes to the default partition; that month then cannot be made over it.
    const lost = Date.UTC(2020, 5, 15);
    await sql`update messages set when_ms = ${lost} where id = (select min(id) from messages where module_serial = 'C0FE' and when_ms > ${Date.now() - DAY})`.execute(db());
    expect(await count('messages_default')).toBe(1);
    expect((await createPartitionsAhead(db(), lost, 0)).refused).toEqual(['messages_y2020m06']);
    await sql`update messages set when_ms = ${Date.now()} where when_ms = ${lost}`.execute(db());
  });

  it('drops whole months past retention, keeps a month holding rows a module keeps longer, and leaves device counters true', async () => {
    const repository = new RetentionRepository(db());
    await repository.setModule('0ACE', { messagesDays: 0, rawDays: null });
    const c0feMessage = await db().selectFrom('messages').select('id').where('module_serial', '=', 'C0FE').orderBy('id').executeTakeFirstOrThrow();
    const app1 = await sql<{ id: number }>`insert into apps (account_id, name, key, secret, created_at) select id, 'a', 'k', 's', 0 from accounts limit 1 returning id`.execute(db());
    await sql`insert into deliveries (uuid, app_id, message_id, status, next_attempt_at, created_at, updated_at) values ('d1', ${app1.rows[0]!.id}, ${c0feMessage.id}, 'failed', 0, 0, 0)`.execute(db());
    const rawJanuary = sql`raw_id in (select id from raw_messages_y2026m01)`;
    expect(await count('rinfos', rawJanuary)).toBe(3);
    const before = { c0fe: await counters('C0FE'), ace: await counters('0ACE') };
    expect(before.c0fe.msgs).toBe(4);

    const pruner = startRetentionPruner(repository, { messagesDays: 30, rawDays: 30, alertsDays: 0 }, silent, { batch: 2, partitions: timePartitions(db()) });
    // Messages: C0FE's January month goes whole; 0ACE's February month stays (kept forever). Raw: both
    // months go, and the empty June 2020 month made by the test above.
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 6, alerts: 0, partitions: 4 });
    expect(await names('messages')).not.toContain('messages_y2026m01');
    expect(await names('messages')).toContain('messages_y2026m02');
    expect(await names('raw')).not.toContain('raw_messages_y2026m01');
    expect(await names('raw')).not.toContain('raw_messages_y2026m02');
    expect(await count('messages', sql`module_serial = 'C0FE'`)).toBe(1);
    expect(await count('messages', sql`module_serial = '0ACE'`)).toBe(4);
    expect(await count('raw_messages')).toBe(2);
    expect(await count('rinfos')).toBe(2);
    expect(await count('deliveries')).toBe(0);
    // 0ACE's kept messages forget their dropped raw messages, as ON DELETE SET NULL did.
    expect(await count('messages', sql`module_serial = '0ACE' and raw_id is null`)).toBe(3);
    expect(await count('messages', sql`raw_id not in (select id from raw_messages)`)).toBe(0);
    expect({ c0fe: await counters('C0FE'), ace: await counters('0ACE') }).toEqual(before);
    expect(await pruner.runOnce()).toEqual({ messages: 0, raw: 0, alerts: 0, partitions: 0 });

    // The owner returns to the default: the February month now goes whole too.
    await repository.setModule('0ACE', { messagesDays: null, rawDays: null });
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 0, alerts: 0, partitions: 1 });
    expect(await count('messages', sql`module_serial = '0ACE'`)).toBe(1);
    await pruner.stop();
  });

  it('keeps ingesting and deleting through the parent: a module reset empties its partitions rows and their rinfos', async () => {
    await uplink(app, 'C0FE', frames.keepAlive(5), Math.floor(Date.now() / 1000) + 600);
    expect(await count('messages', sql`module_serial = 'C0FE'`)).toBe(2);
    await db().transaction().execute((trx) => resetRegistration(trx, ['C0FE']));
    expect(await count('messages', sql`module_serial = 'C0FE'`)).toBe(0);
    expect(await count('raw_messages', sql`module_serial = 'C0FE'`)).toBe(0);
    expect(await count('rinfos', sql`raw_id not in (select id from raw_messages)`)).toBe(0);
  });
});
