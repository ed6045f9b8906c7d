import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

/** Maps each dialect's spelling of a type to one family, so the two migration sets are comparable. */
function family(type: string): string {
  const t = type.toLowerCase();
  if (/int/.test(t)) return 'integer';
  if (/char|text/.test(t)) return 'text';
  if (/double|real|float/.test(t)) return 'float';
  return t;
}

async function columns(storage: Storage): Promise<Column[]> {
  if (storage.capabilities.dialect === 'postgres') {
    const { rows } = await sql<{ table: string; column: string; type: string; nullable: string }>`
      select table_name as "table", column_name as "column", data_type as "type", is_nullable as "nullable"
      from information_schema.columns where table_schema = 'public' and table_name not like 'kysely_%'
      and table_name not in (select relname from pg_class where relispartition)`.execute(storage.db);
    return rows.map((r) => ({ table: r.table, column: r.column, type: family(r.type), nullable: r.nullable === 'YES' }));
  }
  const { rows: tables } = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name not like 'sqlite_%'`.execute(storage.db);
  const result: Column[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ name: string; type: string; notnull: number; pk: number }>`select * from pragma_table_info(${name})`.execute(storage.db);
    for (const r of rows) result.push({ table: name, column: r.name, type: family(r.type), nullable: r.notnull === 0 && r.pk === 0 });
  }
  return result;
}

async function indexes(storage: Storage): Promise<string[]> {
  const query =
    storage.capabilities.dialect === 'postgres'
      ? sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = 'public' and indexname not like '%_pkey' and indexname not like 'kysely_%' and indexname not like '%_key'
          and tablename not in (select relname from pg_class where relispartition)`
      : sql<{ name: string }>`select name from sqlite_master where type = 'index' and name not like 'sqlite_%' and name not like 'kysely_%'`;
  return (await query.execute(storage.db)).rows.map((r) => r.name).sort();
}

const sort = (list: Column[]) => [...list].sort((a, b) => `${a.table}.${a.column}`.localeCompare(`${b.table}.${b.column}`));

describe.runIf(dialects.includes('postgres'))('migrations', () => {
  const opened: { storage: Storage; database: TestDatabase }[] = [];
  beforeAll(async () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const database = await freshDatabase(dialect);
      opened.push({ database, storage: await openStorage(database.url, { migrate: true }) });
    }
  });
  afterAll(async () => {
    for (const { storage, database } of opened) {
      await storage.close();
      await database.drop();
    }
  });

  it('produce the same tables, columns, types, nullability and indexes on SQLite and PostgreSQL', async () => {
    const [sqlite, postgres] = opened.map((o) => o.storage) as [Storage, Storage];
    const sqliteColumns = sort(await columns(sqlite));
    expect(sqliteColumns.length).toBeGreaterThan(50);
    expect(sort(await columns(postgres))).toEqual(sqliteColumns);
    expect(await indexes(postgres)).toEqual(await indexes(sqlite));
  });

  it('are idempotent: a second run applies nothing', async () => {
    for (const { database } of opened) {
      const again = await openStorage(database.url, { migrate: true });
      await again.close();
    }
  });
});
