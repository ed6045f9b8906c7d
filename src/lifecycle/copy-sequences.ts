import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect, TableInfo } from './copy-table-order.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * The last value a table's sequence handed out in the source (0: none). It can be above the highest
 * id left in the table (pruned or deleted rows): the target continues after it, so an id is never
 * given twice, and references kept without a foreign key (an alert's message) never point to a new row.
 */
export async function sequencePosition(db: AnyDb, dialect: Dialect, table: TableInfo): Promise<number> {
  if (table.generated === undefined) return 0;
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table.name}`.execute(db);
    return Number(rows[0]?.seq ?? 0);
  }
  const { rows } = await sql<{ last: string | number | null }>`
    select pg_sequence_last_value(pg_get_serial_sequence(${table.name}, ${table.generated})) as last`.execute(db);
  return Number(rows[0]?.last ?? 0);
}

/**
 * Moves the target table's sequence past both the highest copied id and the source's position, so
 * the first row written after the move gets a fresh id.
 */
export async function continueSequence(db: AnyDb, dialect: Dialect, table: TableInfo, sourcePosition: number): Promise<number> {
  const column = table.generated;
  if (column === undefined) return 0;
  const { rows } = await sql<{ max: string | number | null }>`select max(${sql.ref(column)}) as max from ${sql.table(table.name)}`.execute(db);
  const next = Math.max(Number(rows[0]?.max ?? 0), sourcePosition);
  if (next <= 0) return 0;
  if (dialect === 'postgres') {
    await sql`select setval(pg_get_serial_sequence(${table.name}, ${column}), ${next}, true)`.execute(db);
    return next;
  }
  // Inserting explicit ids already raised sqlite_sequence to the highest one; only the source's position may be above.
  const updated = await sql`update sqlite_sequence set seq = ${next} where name = ${table.name} and seq < ${next}`.execute(db);
  if (Number(updated.numAffectedRows ?? 0) === 0) {
    const { rows: present } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table.name}`.execute(db);
    if (present.length === 0) await sql`insert into sqlite_sequence (name, seq) values (${table.name}, ${next})`.execute(db);
  }
  return next;
}
