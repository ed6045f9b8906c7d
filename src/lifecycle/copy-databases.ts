import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DatabaseTarget } from '../config.js';
import type { Database } from '../storage/schema.js';
import { connectSqlite, sqliteCapabilities } from '../storage/sqlite/connect.js';
import { connectPostgres, postgresCapabilities } from '../storage/postgres/connect.js';
import { migrateToLatest, migrationsFolder } from '../storage/migrate.js';
import { CopyError, onSide } from './copy-errors.js';
import { describeTables } from './copy-table-order.js';
import type { Dialect } from './copy-table-order.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

export interface OpenDatabase {
  db: AnyDb;
  dialect: Dialect;
}

/** A connection to one side of the copy; the source's SQLite file must exist (the target's is created). */
export function openDatabase(target: DatabaseTarget, side: 'source' | 'target', lockTimeoutMs: number): OpenDatabase {
  if (target.dialect === 'sqlite') {
    if (side === 'source' && (target.path === ':memory:' || !existsSync(target.path))) {
      throw new CopyError(`no database at ${target.path}: check SNSR_DATABASE_URL`);
    }
    if (side === 'target' && target.path === ':memory:') throw new CopyError('the target is an in-memory database: name a file or a PostgreSQL URL');
    return { db: connectSqlite(target.path, { busyTimeoutMs: lockTimeoutMs }), dialect: 'sqlite' };
  }
  return { db: connectPostgres(target.url, { poolSize: 2, lockTimeoutMs }), dialect: 'postgres' };
}

/**
 * What tells one database from another: its file (known before it is opened, so a SQLite target
 * that is the source is refused before anything opens it), or the server and database name.
 */
export async function identity(target: DatabaseTarget, db?: AnyDb): Promise<string> {
  if (target.dialect === 'sqlite') return `sqlite:${existsSync(target.path) ? realpathSync(target.path) : target.path}`;
  if (db === undefined) return `postgres:${target.url}`;
  const { rows } = await sql<{ id: string }>`select current_setting('port') || '/' || pg_postmaster_start_time()::text || '/' || current_database() as id`.execute(db);
  return `postgres:${rows[0]!.id}`;
}

/** Names of the migrations a database has run; undefined when it has never been migrated. */
export async function appliedMigrations(side: OpenDatabase): Promise<string[] | undefined> {
  const present =
    side.dialect === 'sqlite'
      ? await sql`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(side.db)
      : await sql`select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relname = 'kysely_migration'`.execute(side.db);
  if (present.rows.length === 0) return undefined;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(side.db);
  return rows.map((row) => row.name);
}

/**
 * Readies the target: refuses it when one of the snsr tables holds a row (before anything is
 * written, migrations included) unless `replace`, then brings its schema to the running version.
 * Returns the tables that held rows (emptied later, in the copy's transaction).
 */
export async function prepareTarget(side: OpenDatabase, snsrTables: string[], replace: boolean): Promise<string[]> {
  const occupied: string[] = [];
  await onSide('target', async () => {
    for (const table of await describeTables(side.db, side.dialect)) {
      if (!snsrTables.includes(table.name)) continue;
      const { rows } = await sql`select 1 as one from ${sql.table(table.name)} limit 1`.execute(side.db);
      if (rows.length > 0) occupied.push(table.name);
    }
  });
  if (occupied.length > 0 && !replace) {
    throw new CopyError(
      `the target database is not empty (rows in ${occupied.join(', ')}); nothing was changed. Copy into an empty database, or pass --replace to delete the target's snsr data first`,
    );
  }
  await onSide('target', () => migrateToLatest(side.db as Kysely<Database>, side.dialect === 'sqlite' ? sqliteCapabilities : postgresCapabilities));
  return occupied;
}

/** The migrations of this snsr version for a dialect, by name (both dialects use the same names). */
export function knownMigrations(dialect: Dialect): string[] {
  return readdirSync(migrationsFolder(dialect))
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.replace(/\.sql$/, ''))
    .sort();
}

/** Both databases must be at this version's schema, or their tables would not match column for column. */
export function checkSchema(applied: string[] | undefined, known: string[], side: 'source' | 'target'): void {
  const setting = side === 'source' ? 'SNSR_DATABASE_URL' : '--to';
  if (applied === undefined) throw new CopyError(`the ${side} database holds no snsr schema (it was never migrated): check ${setting}`);
  const missing = known.filter((name) => !applied.includes(name));
  if (missing.length > 0) throw new CopyError(`the ${side} database is at an older schema (missing ${missing.join(', ')}): run snsr migrate on it first`);
  const unknown = applied.filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new CopyError(`the ${side} database was migrated by a newer snsr (${unknown.join(', ')}): copy it with that version`);
}
