import { CompiledQuery, sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { MONTHS_AHEAD, PARTITIONED, monthStart, partitionName, partitionsOf } from '../storage/postgres/time-partitions.js';
import type { UplinkKind } from '../storage/retention-repository.js';
import { rowEncoder } from './copy-column-codec.js';
import type { Dialect, TableInfo } from './copy-table-order.js';
import { onSide } from './copy-errors.js';

/** Rows read and written per statement unless the operator chooses (`snsr copy-data --batch-size`). */
export const DEFAULT_BATCH_SIZE = 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** Bound parameters per INSERT at most: under both PostgreSQL's 65,535 and SQLite's 32,766. */
const MAX_PARAMETERS = 30_000;

export interface TableCopy {
  /** The source's table (its primary key pages the reads). */
  source: TableInfo;
  /** The target's table (its column types decide the conversions). */
  target: TableInfo;
  targetDialect: Dialect;
  batchSize: number;
  onBatch: (rowsDone: number) => void;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The multi-row INSERT text for a number of rows, written once per size rather than built by the
 * query builder for every batch: at tens of thousands of parameters per statement, building them
 * cost more than sending them.
 */
function insertStatement(table: string, columns: string[], dialect: Dialect): (rows: number) => string {
  const texts = new Map<number, string>();
  const head = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values `;
  return (rows) => {
    let text = texts.get(rows);
    if (text === undefined) {
      const tuples: string[] = [];
      for (let row = 0, n = 0; row < rows; row++) {
        const marks = columns.map(() => (dialect === 'postgres' ? `$${++n}` : '?'));
        tuples.push(`(${marks.join(', ')})`);
      }
      text = head + tuples.join(', ');
      texts.set(rows, text);
    }
    return text;
  };
}

/**
 * Copies one table in keyset batches by its primary key: each batch is one indexed range read,
 * whatever the table's size, and only one batch is ever held. A batch goes in as multi-row INSERTs,
 * through the parent table where the target is partitioned.
 */
export async function copyTable(reader: AnyDb, writer: AnyDb, copy: TableCopy): Promise<number> {
  const { source, target } = copy;
  if (source.primaryKey.length === 0) throw new Error(`table ${source.name} has no primary key to page through`);
  const columns = sql.join(source.columns.map((c) => sql.ref(c.name)));
  const key = sql.join(source.primaryKey.map((c) => sql.ref(c)));
  const names = source.columns.map((c) => c.name);
  const encode = rowEncoder(names.map((name) => target.columns.find((c) => c.name === name)!), copy.targetDialect);
  const perInsert = Math.max(1, Math.floor(MAX_PARAMETERS / names.length));
  const insert = insertStatement(source.name, names, copy.targetDialect);
  let last: unknown[] | undefined;
  let done = 0;
  for (;;) {
    const after = last === undefined ? sql`` : sql`where (${key}) > (${sql.join(last.map((value) => sql`${value}`))})`;
    const { rows } = await onSide('source', () =>
      sql<Record<string, unknown>>`select ${columns} from ${sql.table(source.name)} ${after} order by ${key} limit ${copy.batchSize}`.execute(reader),
    );
    if (rows.length === 0) break;
    for (let start = 0; start < rows.length; start += perInsert) {
      const chunk = rows.slice(start, start + perInsert);
      const parameters: unknown[] = [];
      for (const row of chunk) parameters.push(...encode(row));
      await onSide('target', () => writer.executeQuery(CompiledQuery.raw(insert(chunk.length), parameters)));
    }
    done += rows.length;
    copy.onBatch(done);
    const lastRow = rows[rows.length - 1]!;
    last = source.primaryKey.map((column) => lastRow[column]);
    if (rows.length < copy.batchSize) break;
  }
  return done;
}

/** Empties the target's snsr tables, those referring to others first (PostgreSQL: one TRUNCATE). */
export async function clearTables(writer: AnyDb, dialect: Dialect, order: string[]): Promise<void> {
  if (dialect === 'postgres') {
    await sql`truncate table ${sql.join(order.map((name) => sql.table(name)))}`.execute(writer);
    return;
  }
  for (const name of [...order].reverse()) await sql`delete from ${sql.table(name)}`.execute(writer);
}

/**
 * On a partitioned PostgreSQL target, the months the source's rows fall in (within ten years back,
 * as migration 0014 made them for data already there) get their partition before the rows arrive:
 * otherwise they would all land in the default partition, which retention cannot drop by month.
 */
export async function makeMonths(reader: AnyDb, writer: AnyDb, now: number): Promise<string[]> {
  const made: string[] = [];
  for (const kind of Object.keys(PARTITIONED) as UplinkKind[]) {
    const { table, key, perSecond } = PARTITIONED[kind];
    const existing = await partitionsOf(writer as Kysely<Database>, kind);
    if (existing === undefined) continue;
    const { rows } = await onSide('source', () =>
      sql<{ low: number | null; high: number | null }>`select min(${sql.ref(key)}) as low, max(${sql.ref(key)}) as high from ${sql.table(table)}`.execute(reader),
    );
    const { low, high } = rows[0] ?? { low: null, high: null };
    if (low === null || high === null) continue;
    const toMs = (value: number) => (Number(value) * 1000) / perSecond;
    const first = monthStart(Math.max(toMs(low), monthStart(now, -120)));
    const end = monthStart(Math.min(toMs(high), monthStart(now, MONTHS_AHEAD + 1) - 1), 1);
    for (let from = first; from < end; from = monthStart(from, 1)) {
      if (existing.some((partition) => partition.from === from)) continue;
      const bound = (ms: number) => sql.lit((ms / 1000) * perSecond);
      const name = partitionName(table, from);
      await sql`create table if not exists ${sql.table(name)} partition of ${sql.table(table)} for values from (${bound(from)}) to (${bound(monthStart(from, 1))})`.execute(writer);
      made.push(name);
    }
  }
  return made;
}
