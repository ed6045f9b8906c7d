import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { POSTGRES_ADMIN_URL as ADMIN_URL } from './helpers/scratch-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dialects: ('sqlite' | 'postgres')[];
  }
}

/**
 * Storage suites run on SQLite and PostgreSQL. CI must have PostgreSQL; elsewhere a missing server
 * skips the PostgreSQL half with a warning rather than failing a laptop's `npm test`.
 */
export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    project.provide('dialects', ['sqlite', 'postgres']);
  } catch (error) {
    if (process.env.CI) throw new Error(`PostgreSQL is required in CI (${ADMIN_URL}): ${(error as Error).message}`);
    console.warn(`\n!! PostgreSQL not reachable at ${ADMIN_URL}: PostgreSQL suites are skipped (${(error as Error).message})\n`);
    project.provide('dialects', ['sqlite']);
  }
}
