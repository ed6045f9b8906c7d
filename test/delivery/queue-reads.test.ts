import SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery, Dialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryQueue } from '../../src/delivery/delivery-queue.js';
import type { ClaimRequest } from '../../src/delivery/delivery-queue.js';
import { parseDatabaseUrl } from '../../src/database-url.js';
import { withDriver, wrapConnections } from '../../src/storage/driver-change.js';
import { connectSqlite, sqliteCapabilities } from '../../src/storage/sqlite/connect.js';
import { dialects } from '../helpers/database.js';
import { deliveryFixture } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';

const BACKLOG = 300;

/** App A with a backlog queued first, then apps B and C with two deliveries each, all due. */
async function queueBehindBacklog(fixture: DeliveryFixture): Promise<{ a: number; b: number; c: number }> {
  const a = await fixture.createApp('http://127.0.0.1:9/a', 'a');
  for (let n = 0; n < BACKLOG; n++) await fixture.message();
  const b = await fixture.createApp('http://127.0.0.1:9/b', 'b');
  const c = await fixture.createApp('http://127.0.0.1:9/c', 'c');
  for (let n = 0; n < 2; n++) await fixture.message();
  return { a: a.id, b: b.id, c: c.id };
}

const request = (owner: string): ClaimRequest => ({ owner, leaseMs: 30_000, limit: 16, perAppLimit: 4, allowance: () => 4 });

const count = (ids: number[]) => ids.reduce((seen, id) => seen.set(id, (seen.get(id) ?? 0) + 1), new Map<number, number>());

describe.each(dialects)('claims behind one app’s backlog (%s)', (dialect) => {
  let fixture: DeliveryFixture | undefined;
  afterEach(() => fixture?.app.close());

  it('reach the other apps’ due deliveries, each app within its limit, oldest first', async () => {
    fixture = await deliveryFixture(dialect);
    const { a, b, c } = await queueBehindBacklog(fixture);
    const queue = new DeliveryQueue(fixture.db, fixture.app.context.storage.capabilities);
    const first = await queue.claim(request('w1'));
    // A's four oldest, then B's and C's two each (A's last two are as new as theirs, past its limit).
    expect(count(first.map((d) => d.appId))).toEqual(new Map([[a, 4], [b, 2], [c, 2]]));
    const oldestOfA = (await fixture.deliveries()).filter((d) => d.app_id === a).sort((x, y) => x.id - y.id).slice(0, 4).map((d) => d.id);
    expect(first.filter((d) => d.appId === a).map((d) => d.id)).toEqual(oldestOfA);
    // Every app is at its limit while those leases last: a second worker gets nothing.
    expect(await queue.claim(request('w2'))).toEqual([]);
    // Once A's four are delivered, A's next four come, and nothing of the full apps.
    for (const delivery of first.filter((d) => d.appId === a)) {
      expect(await queue.complete(delivery.lease, delivery.id, { status: 'delivered', attempts: 1, statusCode: 200 })).toBe(true);
    }
    const next = await queue.claim(request('w2'));
    expect(count(next.map((d) => d.appId))).toEqual(new Map([[a, 4]]));
    expect(Math.min(...next.map((d) => d.id))).toBeGreaterThan(Math.max(...oldestOfA));
  });
});

/** A Kysely dialect that records every statement its connections run. */
function recording(statements: CompiledQuery[]) {
  return (dialect: Dialect): Dialect =>
    withDriver(dialect, (driver) =>
      wrapConnections(driver, (connection) => ({
        executeQuery: (query) => (statements.push(query), connection.executeQuery(query)),
        streamQuery: (query, chunk) => connection.streamQuery(query, chunk),
      })),
    );
}

// SQLite plans without statistics until the database is analyzed, and then takes an equality on an
// index's first column for a narrow lookup: the outbox's reads must not depend on that.
describe('the outbox’s reads on a SQLite database never analyzed', () => {
  let fixture: DeliveryFixture | undefined;
  afterEach(() => fixture?.app.close());

  it('look rows up by id, and the queue up by its partial indexes, never walking the backlog', async () => {
    fixture = await deliveryFixture('sqlite');
    await queueBehindBacklog(fixture);
    const target = parseDatabaseUrl(fixture.app.context.config.databaseUrl);
    if (target.dialect !== 'sqlite') throw new Error('expected a SQLite file');
    const statements: CompiledQuery[] = [];
    const db = connectSqlite(target.path, { wrap: recording(statements) });
    const raw = new SqliteDatabase(target.path, { readonly: true });
    try {
      const queue = new DeliveryQueue(db, sqliteCapabilities);
      const claimed = await queue.claim(request('w1'));
      // The fence's read and a lease-keyed write (a completion's is the same but for what it sets).
      expect(await queue.leaseEnd(claimed[0]!)).toBeGreaterThan(0);
      await queue.release(claimed);
      expect(raw.prepare(`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`).get()).toEqual({ n: 0 });
      const reads = statements.filter((s) => /"?deliveries"?/.test(s.sql) && !/^insert/i.test(s.sql));
      expect(reads.length).toBeGreaterThanOrEqual(7);
      for (const { sql, parameters } of reads) {
        const plan = (raw.prepare(`explain query plan ${sql}`).all(...(parameters as unknown[])) as { detail: string }[]).map((row) => row.detail);
        const onDeliveries = plan.filter((step) => /\bdeliveries\b|\bd\b/.test(step) && /^(SCAN|SEARCH)/.test(step));
        expect(onDeliveries.length, sql).toBeGreaterThan(0);
        for (const step of onDeliveries) {
          // By id, or through one of the queue's partial indexes (or the leased rows'), never a scan of the table.
          expect(step, sql).toMatch(/USING (INTEGER PRIMARY KEY|(COVERING )?INDEX deliveries_(pending|pending_app|leased)\b)/);
        }
        if (/"id" in \(/.test(sql)) expect(onDeliveries.join(' | '), sql).toMatch(/INTEGER PRIMARY KEY/);
      }
    } finally {
      raw.close();
      await db.destroy();
    }
  });
});
