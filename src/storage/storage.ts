import type { Kysely } from 'kysely';
import { parseDatabaseUrl } from '../config.js';
import type { Database } from './schema.js';
import type { Capabilities } from './capabilities.js';
import { connectSqlite, sqliteCapabilities } from './sqlite/connect.js';
import { connectPostgres, postgresCapabilities } from './postgres/connect.js';
import { migrateToLatest } from './migrate.js';

export interface Storage {
  db: Kysely<Database>;
  capabilities: Capabilities;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Run pending migrations before returning (what `serve` and `migrate` do). */
  migrate?: boolean;
}

export async function openStorage(databaseUrl: string, options: OpenOptions = {}): Promise<Storage> {
  const target = parseDatabaseUrl(databaseUrl);
  const db = target.dialect === 'sqlite' ? connectSqlite(target.path) : connectPostgres(target.url);
  const capabilities = target.dialect === 'sqlite' ? sqliteCapabilities : postgresCapabilities;
  const storage: Storage = { db, capabilities, close: () => db.destroy() };
  if (options.migrate) {
    try {
      await migrateToLatest(db, capabilities);
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }
  return storage;
}
