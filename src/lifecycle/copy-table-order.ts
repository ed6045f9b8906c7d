import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

export interface ColumnInfo {
  name: string;
  /** The declared type, lower case (`bigint`, `integer`, `text`, `double precision` …). */
  type: string;
}

/** One snsr table as a live database holds it: what the copy needs to read, write and order it. */
export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  /** Primary key columns in key order: the copy pages through the table by them. */
  primaryKey: string[];
  /** Tables this one's foreign keys point to. */
  references: string[];
  /** The column a sequence numbers (SQLite AUTOINCREMENT, PostgreSQL identity), if any. */
  generated: string | undefined;
}

// Kysely's own bookkeeping: each database gets its own by running the migrations, never copied.
const isSnsrTable = (name: string) => !name.startsWith('kysely_') && !name.startsWith('sqlite_');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

async function sqliteTables(db: AnyDb): Promise<TableInfo[]> {
  const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'table' order by name`.execute(db);
  const tables: TableInfo[] = [];
  for (const { name, sql: ddl } of rows.filter((row) => isSnsrTable(row.name))) {
    const columns = (await sql<{ name: string; type: string; pk: number }>`select name, type, pk from pragma_table_info(${name}) order by cid`.execute(db)).rows;
    const foreign = (await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${name})`.execute(db)).rows;
    const primaryKey = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    tables.push({
      name,
      columns: columns.map((c) => ({ name: c.name, type: c.type.toLowerCase() })),
      primaryKey,
      references: [...new Set(foreign.map((f) => f.table))],
      generated: /\bautoincrement\b/i.test(ddl) ? primaryKey[0] : undefined,
    });
  }
  return tables;
}

async function postgresTables(db: AnyDb): Promise<TableInfo[]> {
  // Partitions are reached through their parent (relispartition): the parent is the table.
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`.execute(db);
  const tables: TableInfo[] = [];
  for (const { name } of rows.filter((row) => isSnsrTable(row.name))) {
    const columns = (
      await sql<{ name: string; type: string; identity: string }>`
        select column_name as name, data_type as type, is_identity as identity from information_schema.columns
        where table_schema = current_schema() and table_name = ${name} order by ordinal_position`.execute(db)
    ).rows;
    const primaryKey = (
      await sql<{ name: string }>`
        select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
        where i.indrelid = ${name}::regclass and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)`.execute(db)
    ).rows.map((row) => row.name);
    const foreign = (
      await sql<{ table: string }>`select distinct cl.relname as table from pg_constraint co join pg_class cl on cl.oid = co.confrelid
        where co.contype = 'f' and co.conrelid = ${name}::regclass`.execute(db)
    ).rows;
    tables.push({
      name,
      columns: columns.map((c) => ({ name: c.name, type: c.type.toLowerCase() })),
      primaryKey,
      references: foreign.map((f) => f.table),
      generated: columns.find((c) => c.identity === 'YES')?.name,
    });
  }
  return tables;
}

/** The snsr tables of a live database, read from its catalog: nothing here is a hand-kept list. */
export function describeTables(db: AnyDb, dialect: Dialect): Promise<TableInfo[]> {
  return dialect === 'sqlite' ? sqliteTables(db) : postgresTables(db);
}

/**
 * Table names so that every table comes after those its foreign keys point to, in either database
 * (PostgreSQL's partitioned tables lost the keys pointing into them, SQLite kept them: the union
 * holds both). Ties go by name, so the order is the same on every run.
 */
export function foreignKeyOrder(...schemas: TableInfo[][]): string[] {
  const needs = new Map<string, Set<string>>();
  for (const table of schemas.flat()) {
    const set = needs.get(table.name) ?? new Set<string>();
    for (const target of table.references) if (target !== table.name) set.add(target);
    needs.set(table.name, set);
  }
  const order: string[] = [];
  const placed = new Set<string>();
  while (placed.size < needs.size) {
    const ready = [...needs.keys()].filter((name) => !placed.has(name) && [...needs.get(name)!].every((dep) => placed.has(dep) || !needs.has(dep))).sort();
    if (ready.length === 0) throw new Error(`foreign keys form a cycle among ${[...needs.keys()].filter((n) => !placed.has(n)).join(', ')}`);
    for (const name of ready) {
      order.push(name);
      placed.add(name);
    }
  }
  return order;
}
