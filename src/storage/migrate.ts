import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import type { Database } from './schema.js';
import type { Capabilities } from './capabilities.js';
import { rebuildTable } from './sqlite/rebuild-table.js';
import { packagePath } from '../package-files.js';

/** migrations/<dialect>/NNNN_name.sql at the package root. */
export const migrationsFolder = (dialect: Capabilities['dialect']): string => packagePath('migrations', dialect);

/**
 * Splits a migration file into statements: each ends with `;` at the end of a line, outside a
 * dollar-quoted body (`$$ … $$`, a PostgreSQL function), whose own statements end lines too.
 */
function statements(text: string): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let quoted = false;
  for (const line of text.split('\n')) {
    if (!quoted && /^\s*--/.test(line)) continue;
    current.push(line);
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      parts.push(current.join('\n').trim().replace(/;$/, ''));
      current = [];
    }
  }
  parts.push(current.join('\n').trim());
  return parts.filter((part) => part.length > 0);
}

/** Work a migration's SQL file cannot say, run before its statements: `{ "0015_name": step }`. */
export type MigrationSteps = Readonly<Record<string, (db: Kysely<Database>) => Promise<void>>>;

/**
 * SQLite has no ALTER COLUMN: dropping a NOT NULL rebuilds the table, and how it stands (columns and
 * indexes of later migrations, or not yet) depends on the order its migrations ran in.
 */
const SQLITE_STEPS: MigrationSteps = {
  '0015_alert_deliveries': (db) =>
    rebuildTable(db, 'deliveries', (create) => create.replace(/message_id INTEGER NOT NULL REFERENCES/, 'message_id INTEGER REFERENCES')),
};

/** The SQL files of one dialect's folder as Kysely migrations, named by file. */
export class SqlFileProvider implements MigrationProvider {
  constructor(
    private readonly folder: string,
    private readonly steps: MigrationSteps = {},
  ) {}

  async getMigrations(): Promise<Record<string, Migration>> {
    const migrations: Record<string, Migration> = {};
    for (const file of readdirSync(this.folder).filter((name) => name.endsWith('.sql')).sort()) {
      const text = readFileSync(join(this.folder, file), 'utf8');
      migrations[file.replace(/\.sql$/, '')] = {
        up: async (db) => {
          await this.steps[file.replace(/\.sql$/, '')]?.(db as Kysely<Database>);
          for (const statement of statements(text)) await sql.raw(statement).execute(db);
        },
      };
    }
    return migrations;
  }
}

export class MigrationError extends Error {}

/** Brings the schema up to date; safe to run from several processes at once (Kysely locks). */
export async function migrateToLatest(
  db: Kysely<Database>,
  capabilities: Capabilities,
): Promise<MigrationResultSet> {
  // Capabilities are built on parallel branches, each with its own migration number; a database that
  // already ran a later number still takes an earlier one that arrives afterwards.
  const migrator = new Migrator({
    db,
    provider: new SqlFileProvider(migrationsFolder(capabilities.dialect), capabilities.dialect === 'sqlite' ? SQLITE_STEPS : {}),
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration ran: the database could not be reached or read; the caller describes that error.
    if (failed === undefined) throw result.error;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new MigrationError(`migration ${failed} failed: ${reason}`);
  }
  return result;
}
