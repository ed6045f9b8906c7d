import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { inject } from 'vitest';
import type { Database } from '../../src/storage/schema.js';
import { scratchDatabase } from './scratch-database.js';
import type { ScratchDatabase } from './scratch-database.js';

export type Dialect = 'sqlite' | 'postgres';
export type TestDatabase = ScratchDatabase;

/** The dialects this run covers: both, unless PostgreSQL is absent outside CI. */
export const dialects: Dialect[] = inject('dialects');

/** A new, empty database of the dialect: a temporary SQLite file or a new PostgreSQL database. */
export const freshDatabase = (dialect: Dialect): Promise<TestDatabase> => scratchDatabase(dialect);

const postgresTemplate = inject('postgresTemplate');

/**
 * A new database with every migration applied, for tests that start an app on it: on PostgreSQL a
 * copy of the run's migrated template (global-setup.ts), which saves each app the migrations (about
 * 0.9 s on a busy machine, 113 times in the suite); SQLite migrates a new file in under 0.1 s.
 */
export const migratedDatabase = (dialect: Dialect): Promise<TestDatabase> =>
  scratchDatabase(dialect, undefined, dialect === 'postgres' && postgresTemplate ? postgresTemplate : undefined);

/** Resolves once a statement on the database (one whose text is `like` this) waits for a lock. */
export async function waitForLockWait(db: Kysely<Database>, like = '%'): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like ${like}`.execute(db);
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
