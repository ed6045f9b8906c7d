import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { DeliveryQueue } from '../../src/delivery/delivery-queue.js';
import type { Database } from '../../src/storage/schema.js';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';

/** The claim's first read: the oldest due rows. */
const headPlan = async (db: Kysely<Database>): Promise<string> => {
  const now = Date.now() + 60_000;
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain select id, app_id, next_attempt_at from deliveries
    where status = 'pending' and next_attempt_at <= ${sql.lit(now)} and (lease_until is null or lease_until <= ${sql.lit(now)})
    order by next_attempt_at, id limit 32`.execute(db);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
};

const lastAnalyzed = async (db: Kysely<Database>): Promise<number> => {
  const { rows } = await sql<{ at: number | null }>`select extract(epoch from last_analyze) * 1000 as at from pg_stat_user_tables where relname = 'deliveries'`.execute(db);
  return Number(rows[0]?.at ?? 0);
};

/** Each message queues a delivery for every app on module C0FE. */
async function queue(fixture: DeliveryFixture, messages: number): Promise<void> {
  for (let n = 0; n < messages; n++) await fixture.message();
}

describe.runIf(dialects.includes('postgres'))('the outbox’s statistics (postgres)', () => {
  let fixture: DeliveryFixture | undefined;
  afterEach(() => fixture?.close());

  it('are taken again once a tenth of it changed, so that a claim reads the index’s first rows', async () => {
    fixture = await deliveryFixture('postgres');
    await fixture.createApp('http://127.0.0.1:9/a', 'a');
    const outbox = new DeliveryQueue(fixture.db, fixture.app.context.storage.capabilities);
    expect(await outbox.refreshStatistics()).toEqual([]);
    // Autovacuum analyzes these tables too, at moments of its own, and one it analyzed first is no
    // longer stale for snsr: off for this database's outbox and message partitions, so that only
    // the refresh under test takes their statistics.
    await sql`do $$ declare t regclass; begin
      for t in select 'deliveries'::regclass union all select inhrelid::regclass from pg_inherits where inhparent = 'messages'::regclass loop
        execute format('alter table %s set (autovacuum_enabled = false)', t);
      end loop; end $$`.execute(fixture.db);
    // A thousand changed rows at least, in the outbox and in the messages' partition.
    await queue(fixture, 1000);
    // The server counts changes a little after each transaction, each table at its own moment: wait
    // until the refreshes have taken both, the messages' partition because a claim loads the
    // messages of what it leased.
    const analyzed = new Set<string>();
    const refreshed = async () => {
      for (const table of await outbox.refreshStatistics()) analyzed.add(table);
      return [...analyzed];
    };
    await eventually(refreshed, (tables) => tables.includes('deliveries') && tables.some((table) => table.startsWith('messages')), 30_000);
    expect(await lastAnalyzed(fixture.db)).toBeGreaterThan(0);
    const plan = await headPlan(fixture.db);
    expect(plan).toMatch(/Index Scan using deliveries_pending/);
    expect(plan).not.toMatch(/Sort/);
    // Fresh now: nothing to do until the next tenth has changed.
    expect(await outbox.refreshStatistics()).toEqual([]);
  });

  it('are checked by a running worker', async () => {
    fixture = await deliveryFixture('postgres');
    for (const name of ['a', 'b', 'c', 'd']) await fixture.createApp(`http://127.0.0.1:9/${name}`, name);
    await queue(fixture, 250);
    fixture.app.context.startWorker({ statisticsIntervalMs: 100, pollMs: 60_000 });
    await eventually(() => lastAnalyzed(fixture!.db), (at) => at > 0, 30_000);
  });

  it('a worker warns when the server runs without autovacuum, which alone reclaims the outbox’s dead rows', async () => {
    fixture = await deliveryFixture('postgres');
    const { rows } = await sql<{ setting: string }>`select current_setting('autovacuum') as setting`.execute(fixture.db);
    const off = rows[0]!.setting === 'off';
    expect(await new DeliveryQueue(fixture.db, fixture.app.context.storage.capabilities).vacuumOff()).toBe(off);
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const context = await createContext(fixture.app.context.config, { log, migrate: false });
    try {
      context.startWorker({ pollMs: 60_000 });
      // This machine's PostgreSQL runs without it; where it runs with it, there is nothing to say.
      if (off) await eventually(async () => lines.join(''), (text) => text.includes('autovacuum off'));
    } finally {
      await context.close();
    }
  });
});
