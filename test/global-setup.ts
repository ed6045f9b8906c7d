import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStorage } from '../src/storage/storage.js';
import { POSTGRES_ADMIN_URL as ADMIN_URL } from './helpers/scratch-database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dialects: ('sqlite' | 'postgres')[];
    /** A PostgreSQL database with every migration applied, that test apps' databases copy ('' without PostgreSQL). */
    postgresTemplate: string;
  }
}

const MIGRATIONS = fileURLToPath(new URL('../migrations/postgres', import.meta.url));

/**
 * The run's migrated template: named after the migrations' contents and the month (the migrations
 * create time partitions around the current month), built once and kept for later runs, while
 * templates of other migrations or months are dropped.
 */
async function migratedTemplate(admin: pg.Client): Promise<string> {
  const hash = createHash('sha1');
  for (const file of readdirSync(MIGRATIONS).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS, file)));
  const month = new Date().toISOString().slice(0, 7).replace('-', '');
  const name = `snsr_template_${hash.digest('hex').slice(0, 12)}_${month}`;
  const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'snsr\\_template\\_%'");
  for (const { datname } of rows) if (datname !== name) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  if (rows.some((row) => row.datname === name)) return name;
  // Built under a name of its own and renamed once complete: a run that stops halfway leaves no
  // template that looks ready, and a run beside this one that built it first wins.
  const building = `snsr_building_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${building}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${building}`;
  const storage = await openStorage(url.toString(), { migrate: true });
  await storage.close();
  try {
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
  } catch {
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
  }
  return name;
}

/**
 * Storage suites run on SQLite and PostgreSQL. CI must have PostgreSQL; elsewhere a missing server
 * skips the PostgreSQL half with a warning rather than failing a laptop's `npm test`.
 */
export default async function setup(project: TestProject): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    if (process.env.CI) throw new Error(`PostgreSQL is required in CI (${ADMIN_URL}): ${(error as Error).message}`);
    console.warn(`\n!! PostgreSQL not reachable at ${ADMIN_URL}: PostgreSQL suites are skipped (${(error as Error).message})\n`);
    project.provide('dialects', ['sqlite']);
    project.provide('postgresTemplate', '');
    return;
  }
  try {
    project.provide('postgresTemplate', await migratedTemplate(client));
    project.provide('dialects', ['sqlite', 'postgres']);
  } finally {
    await client.end();
  }
}
