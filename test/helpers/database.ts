import { inject } from 'vitest';
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
