import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Where tests and benchmarks create their PostgreSQL databases. */
export const POSTGRES_ADMIN_URL = process.env.SNSR_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A new, empty database of the dialect, for one test suite or benchmark run: a SQLite file in a
 * temporary folder, or a new PostgreSQL database next to the admin URL's (a copy of `template` when
 * given). Throws when PostgreSQL does not answer.
 */
export async function scratchDatabase(dialect: 'sqlite' | 'postgres', prefix = 'snsr_test', template?: string): Promise<ScratchDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `${prefix.replaceAll('_', '-')}-`));
    return { url: `sqlite:${join(dir, 'snsr.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** For benchmarks: the database, or undefined (said on stdout) when PostgreSQL does not answer. */
export async function benchDatabase(dialect: 'sqlite' | 'postgres'): Promise<ScratchDatabase | undefined> {
  try {
    return await scratchDatabase(dialect, 'snsr_bench');
  } catch (error) {
    console.log(`${dialect}: skipped, no server at ${POSTGRES_ADMIN_URL} (${(error as Error).message})`);
    return undefined;
  }
}
