import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * SQLite's way to change what ALTER TABLE cannot (drop a NOT NULL, say): a new table from the old
 * one's CREATE statement as edited, the rows copied, the old table dropped, the new one renamed, its
 * indexes and AUTOINCREMENT counter restored (the generalized ALTER TABLE procedure of SQLite's
 * documentation). It reads the table as it is, not as one migration left it: migrations of parallel
 * branches run in different orders on different databases (migrate.ts), and later ones add columns
 * and indexes. Runs on the caller's transaction; the table must not be referenced by foreign keys.
 */
export async function rebuildTable(db: Kysely<Database>, table: string, edit: (createSql: string) => string): Promise<void> {
  const master = await sql<{ type: string; sql: string }>`
    select type, sql from sqlite_master where tbl_name = ${table} and sql is not null order by type desc`.execute(db);
  const create = master.rows.find((row) => row.type === 'table');
  if (!create) throw new Error(`table ${table} not found`);
  const edited = edit(create.sql);
  if (edited === create.sql) throw new Error(`table ${table}: the edit changed nothing`);
  const temporary = `${table}_rebuilt`;
  const head = new RegExp(`^CREATE TABLE "?${table}"?`, 'i');
  if (!head.test(edited)) throw new Error(`table ${table}: unexpected CREATE statement ${edited.slice(0, 60)}`);
  const sequence = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(db).catch(() => ({ rows: [] }));
  await sql.raw(edited.replace(head, `CREATE TABLE "${temporary}"`)).execute(db);
  await sql.raw(`INSERT INTO "${temporary}" SELECT * FROM "${table}"`).execute(db);
  await sql.raw(`DROP TABLE "${table}"`).execute(db);
  await sql.raw(`ALTER TABLE "${temporary}" RENAME TO "${table}"`).execute(db);
  for (const index of master.rows.filter((row) => row.type === 'index')) await sql.raw(index.sql).execute(db);
  const seq = sequence.rows[0]?.seq;
  if (seq === undefined) return;
  await sql`delete from sqlite_sequence where name = ${table}`.execute(db);
  await sql`insert into sqlite_sequence (name, seq) values (${table}, ${seq})`.execute(db);
}
