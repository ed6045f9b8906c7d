import { inject } from 'vitest';
import { scratchDatabase } from './scratch-database.js';
import type { ScratchDatabase } from './scratch-database.js';

export type Dialect = 'sqlite' | 'postgres';
export type TestDatabase = ScratchDatabase;

/** The dialects this run covers: both, unless PostgreSQL is absent outside CI. */
export const dialects: Dialect[] = inject('dialects');

/** A new, empty database of the dialect: a temporary SQLite file or a new PostgreSQL database. */
export const freshDatabase = (dialect: Dialect): Promise<TestDatabase> => scratchDatabase(dialect);
