import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

describe('database and delivery settings', () => {
  it('reads pool size, timeouts, processes, lease and request timeout, with defaults', () => {
    const defaults = loadConfig({});
    expect(defaults.database).toEqual({ poolSize: 10, statementTimeoutMs: 60_000, lockTimeoutMs: 10_000 });
    expect(defaults.processes).toBe(1);
    expect(defaults.ingestCommitDelayMs).toBeUndefined();
    expect(defaults.delivery).toMatchObject({ leaseMs: 30_000, timeoutMs: 5000 });
    const set = loadConfig({
      SNSR_DATABASE_POOL_SIZE: '3',
      SNSR_STATEMENT_TIMEOUT_MS: '0',
      SNSR_LOCK_TIMEOUT_MS: '250',
      SNSR_PROCESSES: '4',
      SNSR_INGEST_COMMIT_DELAY_MS: '0',
      SNSR_DELIVERY_LEASE_MS: '9000',
      SNSR_DELIVERY_TIMEOUT_MS: '3000',
    });
    expect(set.database).toEqual({ poolSize: 3, statementTimeoutMs: 0, lockTimeoutMs: 250 });
    expect(set.processes).toBe(4);
    expect(set.ingestCommitDelayMs).toBe(0);
    expect(set.delivery).toMatchObject({ leaseMs: 9000, timeoutMs: 3000 });
  });

  it('refuses values out of range, and a lease too short for the requests it covers', () => {
    expect(() => loadConfig({ SNSR_DATABASE_POOL_SIZE: '0' })).toThrow(/SNSR_DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "0"/);
    expect(() => loadConfig({ SNSR_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/SNSR_STATEMENT_TIMEOUT_MS must be an integer/);
    expect(() => loadConfig({ SNSR_INGEST_COMMIT_DELAY_MS: '2.5' })).toThrow(/SNSR_INGEST_COMMIT_DELAY_MS must be an integer from 0 to 1000, got "2.5"/);
    expect(() => loadConfig({ SNSR_PROCESSES: 'many' })).toThrow(/SNSR_PROCESSES must be an integer from 1 to 256, got "many"/);
    expect(() => loadConfig({ SNSR_DELIVERY_LEASE_MS: '10000', SNSR_DELIVERY_TIMEOUT_MS: '5000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SNSR_DELIVERY_LEASE_MS: '10000', SNSR_DELIVERY_TIMEOUT_MS: '5000' })).toThrow(
      'SNSR_DELIVERY_LEASE_MS (10000) must be at least 3 × SNSR_DELIVERY_TIMEOUT_MS (5000)',
    );
  });
});

describe.each(dialects)('database settings applied (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    await database?.drop();
  });

  it.runIf(dialect === 'postgres')('gives every pooled connection the timeouts, and opens no more than the pool size', async () => {
    database = await freshDatabase(dialect);
    storage = await openStorage(database.url, { migrate: true, database: { poolSize: 3, statementTimeoutMs: 1500, lockTimeoutMs: 200 } });
    const db = storage.db;
    const sessions = await Promise.all(
      Array.from({ length: 6 }, () =>
        sql<{ pid: number; statement: string; lock: string }>`select pg_backend_pid() as pid, current_setting('statement_timeout') as statement,
          current_setting('lock_timeout') as lock, pg_sleep(0.2)`.execute(db),
      ),
    );
    const rows = sessions.map((result) => result.rows[0]!);
    expect(new Set(rows.map((row) => row.pid)).size).toBe(3);
    expect(rows.every((row) => row.statement === '1500ms' && row.lock === '200ms')).toBe(true);
    await expect(sql`select pg_sleep(5)`.execute(db)).rejects.toThrow(/statement timeout/);
    // A row lock held elsewhere: the waiting statement gives up after lock_timeout instead of queueing.
    await db.insertInto('settings').values({ name: 'k', value: 'v' }).execute();
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`select * from settings where name = 'k' for update`.execute(trx);
        await sql`update settings set value = 'w' where name = 'k'`.execute(db);
      }),
    ).rejects.toThrow(/lock timeout/);
  });

  it.runIf(dialect === 'sqlite')('waits for another writer as long as the lock timeout says', async () => {
    database = await freshDatabase(dialect);
    storage = await openStorage(database.url, { migrate: true, database: { lockTimeoutMs: 1234 } });
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(storage.db);
    expect(rows[0]!.timeout).toBe(1234);
  });
});
