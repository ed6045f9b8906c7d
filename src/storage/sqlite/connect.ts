import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { Capabilities } from '../capabilities.js';

export const sqliteCapabilities: Capabilities = { dialect: 'sqlite', skipLocked: false };

/**
 * One connection, WAL mode. `synchronous = NORMAL` keeps every committed transaction safe from a
 * process crash (WAL fsyncs on checkpoint), which is the durability an embedded default needs.
 */
export function connectSqlite(path: string): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}
