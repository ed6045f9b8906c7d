import { statSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { parseDatabaseUrl } from '../config.js';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
import type { Capabilities } from './capabilities.js';
import { connectSqlite, sqliteCapabilities } from './sqlite/connect.js';
import { startCheckpointer } from './sqlite/checkpointer.js';
import { connectPostgres, postgresCapabilities } from './postgres/connect.js';
import { migrateToLatest } from './migrate.js';
import { TransactionalNotifier } from './notifications.js';
import type { Notifier } from './notifications.js';
import { PostgresTransport } from './postgres/listener.js';

export interface Storage {
  db: Kysely<Database>;
  capabilities: Capabilities;
  /** After-commit notifications: LISTEN/NOTIFY on PostgreSQL, in-process on SQLite. */
  notifier: Notifier;
  /** Connections: how many the pool may open, how many are open and lent out, how many callers wait. */
  poolUse(): PoolUse;
  /** The size of the SQLite WAL file in bytes (0 on PostgreSQL and in memory). */
  walBytes(): number;
  close(): Promise<void>;
}

export interface PoolUse {
  max: number;
  open: number;
  busy: number;
  waiting: number;
}

export interface OpenOptions {
  /** Run pending migrations before returning (what `serve` and `migrate` do). */
  migrate?: boolean;
  /** Pool size and timeouts (`Config['database']`); defaults: 10 connections, no timeouts. */
  database?: Partial<Config['database']>;
  /** Told when the notifier's listening connection fails (it reconnects by itself). */
  onNotifierError?: (error: unknown) => void;
  /**
   * SQLite file: checkpoint the WAL from a worker thread (sqlite/checkpointer.ts), what a server
   * that ingests wants; default false, so that short commands do not start a thread.
   */
  backgroundCheckpoints?: boolean;
  /** Told when that worker fails (the writer checkpoints by itself again). */
  onCheckpointerError?: (error: unknown) => void;
}

export async function openStorage(databaseUrl: string, options: OpenOptions = {}): Promise<Storage> {
  const target = parseDatabaseUrl(databaseUrl);
  const onError = options.onNotifierError ?? (() => {});
  const notifier = new TransactionalNotifier(target.dialect === 'postgres' ? new PostgresTransport(target.url, onError) : undefined, onError);
  const wrap = notifier.wrapDialect.bind(notifier);
  const settings = options.database ?? {};
  // SQLite's one connection is always open; statements run one after another on it.
  let poolUse = (): PoolUse => ({ max: 1, open: 1, busy: 0, waiting: 0 });
  const onPool = (pool: { options: { max?: number }; totalCount: number; idleCount: number; waitingCount: number }) => {
    poolUse = () => ({ max: pool.options.max ?? 10, open: pool.totalCount, busy: pool.totalCount - pool.idleCount, waiting: pool.waitingCount });
  };
  const db =
    target.dialect === 'sqlite'
      ? connectSqlite(target.path, { wrap, busyTimeoutMs: settings.lockTimeoutMs })
      : connectPostgres(target.url, { ...settings, wrap, onPool });
  const capabilities = target.dialect === 'sqlite' ? sqliteCapabilities : postgresCapabilities;
  const checkpointer =
    options.backgroundCheckpoints === true && target.dialect === 'sqlite' && target.path !== ':memory:'
      ? await startCheckpointer(target.path, db, { onError: options.onCheckpointerError })
      : undefined;
  const close = async () => {
    await notifier.close();
    await checkpointer?.stop();
    await db.destroy();
  };
  const wal = target.dialect === 'sqlite' && target.path !== ':memory:' ? `${target.path}-wal` : undefined;
  const walBytes = () => (wal === undefined ? 0 : (statSync(wal, { throwIfNoEntry: false })?.size ?? 0));
  const storage: Storage = { db, capabilities, notifier, poolUse: () => poolUse(), walBytes, close };
  if (options.migrate) {
    try {
      await migrateToLatest(db, capabilities);
    } catch (error) {
      await close();
      throw error;
    }
  }
  return storage;
}
