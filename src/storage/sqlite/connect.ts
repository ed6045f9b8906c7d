import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import type { Dialect } from 'kysely';
import type { Database } from '../schema.js';
import type { Capabilities } from '../capabilities.js';
import { withDriver } from '../driver-change.js';
import { cachingStatements } from './statement-cache.js';

/**
 * The WAL size past which the log should start over (see `startCheckpointer`), and the size its
 * file is cut back to when it does: 64 MiB, about five seconds of WAL at a steady 200 uplinks a second.
 */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

export const sqliteCapabilities: Capabilities = { dialect: 'sqlite', skipLocked: false, embedded: true };

/**
 * Transactions take the write lock when they begin (`BEGIN IMMEDIATE`), waiting up to busy_timeout
 * for it. A deferred transaction that reads first and writes later fails at once, without waiting,
 * when another process (a CLI command run beside the server) wrote in between.
 */
function immediateTransactions(dialect: SqliteDialect): Dialect {
  return withDriver(dialect, (driver) => {
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
  });
}

/**
 * One connection, WAL mode. `synchronous = NORMAL` keeps every committed transaction safe from a
 * process crash (WAL fsyncs on checkpoint), which is the durability an embedded default needs.
 */
export interface SqliteOptions {
  /** Adds behaviour to the driver (after-commit notifications). */
  wrap?: (dialect: Dialect) => Dialect;
  /** How long a writer waits for another process's write lock; 0: as long as it takes. */
  busyTimeoutMs?: number;
}

export function connectSqlite(path: string, options: SqliteOptions = {}): Kysely<Database> {
  const { wrap = (dialect: Dialect) => dialect, busyTimeoutMs = 5000 } = options;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // 64 MB of pages (16 MB by default): what history reads touch across a fleet at 10 M messages
  // (each module's newest rows and their index leaves), kept in the process instead of read again.
  database.pragma('cache_size = -65536');
  // The WAL file is cut back to this size whenever the log starts over; without a limit it keeps
  // the largest size it ever reached, and overwriting its old blocks can cost reads from disk.
  database.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
  database.pragma('foreign_keys = ON');
  database.pragma(`busy_timeout = ${busyTimeoutMs === 0 ? 2 ** 31 - 1 : Math.trunc(busyTimeoutMs)}`);
  return new Kysely<Database>({ dialect: wrap(immediateTransactions(new SqliteDialect({ database: cachingStatements(database) }))) });
}
