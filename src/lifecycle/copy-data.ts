import { sql } from 'kysely';
import { parseDatabaseUrl } from '../config.js';
import { clearTables, copyTable, DEFAULT_BATCH_SIZE, makeMonths } from './copy-batches.js';
import { appliedMigrations, checkSchema, identity, knownMigrations, openDatabase, prepareTarget } from './copy-databases.js';
import type { AnyDb, OpenDatabase } from './copy-databases.js';
import { CopyError, onSide } from './copy-errors.js';
import { continueSequence, sequencePosition } from './copy-sequences.js';
import { describeTables, foreignKeyOrder } from './copy-table-order.js';
import type { TableInfo } from './copy-table-order.js';

export { CopyError, DatabaseSideError } from './copy-errors.js';
export { DEFAULT_BATCH_SIZE } from './copy-batches.js';

export interface CopyOptions {
  /** The database to copy from (`SNSR_DATABASE_URL`'s forms). */
  from: string;
  /** The database to copy into. */
  to: string;
  /** Empty the target's snsr tables first (in the copy's transaction) instead of refusing a non-empty target. */
  replace?: boolean;
  /** Rows read and written per batch. */
  batchSize?: number;
  lockTimeoutMs?: number;
  /** Told after every batch, and once more when a table is finished. */
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopyProgress {
  table: string;
  done: number;
  total: number;
  finished: boolean;
}

export interface CopyResult {
  tables: { table: string; rows: number; ms: number }[];
  ms: number;
  /** Tables of the target that held rows and were emptied (`replace`). */
  replaced: string[];
  /** Month partitions made on a PostgreSQL target for the source's rows. */
  partitions: string[];
  /** The generated device-token secret was in the source's settings, and is now in the target's. */
  secretCopied: boolean;
}

/**
 * Reads the source inside one transaction, so the copy is one consistent snapshot even while snsr
 * serves: on SQLite a deferred (read) transaction, which in WAL mode neither blocks the writer nor
 * sees its later commits; on PostgreSQL REPEATABLE READ, read only.
 */
async function inSnapshot<T>(source: OpenDatabase, body: (reader: AnyDb) => Promise<T>): Promise<T> {
  return source.db.connection().execute(async (reader) => {
    await onSide('source', () => sql.raw(source.dialect === 'sqlite' ? 'begin deferred' : 'begin isolation level repeatable read read only').execute(reader));
    try {
      return await body(reader);
    } finally {
      await sql.raw('rollback').execute(reader).catch(() => {});
    }
  });
}

/** Every source table must exist in the target with the same columns (they ran the same migrations); other tables of the target are left alone. */
function matchTables(source: TableInfo[], target: TableInfo[]): Map<string, TableInfo> {
  const byName = new Map(target.map((table) => [table.name, table]));
  for (const table of source) {
    const other = byName.get(table.name);
    if (other === undefined) throw new CopyError(`table ${table.name} of the source is missing in the target`);
    const names = (t: TableInfo) => t.columns.map((c) => c.name).sort().join(', ');
    if (names(table) !== names(other)) throw new CopyError(`table ${table.name} has columns (${names(table)}) in the source but (${names(other)}) in the target`);
  }
  return byName;
}

/**
 * Copies every snsr table from one database into another, SQLite or PostgreSQL either side. The
 * target is migrated to this version's schema first; it must hold no snsr rows unless `replace`.
 * All writes happen in one target transaction: a failure leaves the target as it was.
 */
export async function copyData(options: CopyOptions): Promise<CopyResult> {
  const started = performance.now();
  const from = parseDatabaseUrl(options.from);
  const to = parseDatabaseUrl(options.to);
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const report = options.onProgress ?? (() => {});
  const source = openDatabase(from, 'source', lockTimeoutMs);
  let target: OpenDatabase | undefined;
  try {
    const known = knownMigrations(source.dialect);
    checkSchema(await onSide('source', () => appliedMigrations(source)), known, 'source');
    const sourceTables = await onSide('source', () => describeTables(source.db, source.dialect));
    const sourceId = await onSide('source', () => identity(from, source.db));
    if (to.dialect === 'sqlite' && (await identity(to)) === sourceId) throw new CopyError('the target is the source database itself: name another database with --to');
    const into = (target = openDatabase(to, 'target', lockTimeoutMs));
    if ((await onSide('target', () => identity(to, into.db))) === sourceId) throw new CopyError('the target is the source database itself: name another database with --to');

    const replaced = await prepareTarget(into, sourceTables.map((t) => t.name), options.replace === true);
    checkSchema(await onSide('target', () => appliedMigrations(into)), known, 'target');
    const targetTables = matchTables(sourceTables, await onSide('target', () => describeTables(into.db, into.dialect)));
    const order = foreignKeyOrder(sourceTables, [...targetTables.values()]).filter((name) => sourceTables.some((t) => t.name === name));

    return await inSnapshot(source, async (reader) => {
      const totals = new Map<string, number>();
      const positions = new Map<string, number>();
      for (const table of sourceTables) {
        const { rows } = await onSide('source', () => sql<{ n: number | string }>`select count(*) as n from ${sql.table(table.name)}`.execute(reader));
        totals.set(table.name, Number(rows[0]!.n));
        positions.set(table.name, await onSide('source', () => sequencePosition(reader, source.dialect, table)));
      }
      const secret = await onSide('source', () => sql`select 1 as one from settings where name = 'secret'`.execute(reader));
      const tables: CopyResult['tables'] = [];
      let partitions: string[] = [];
      await onSide('target', () =>
        into.db.transaction().execute(async (writer) => {
          if (replaced.length > 0) await clearTables(writer, into.dialect, order);
          if (into.dialect === 'postgres') partitions = await makeMonths(reader, writer, Date.now());
          for (const name of order) {
            const tableStarted = performance.now();
            const total = totals.get(name) ?? 0;
            const sourceTable = sourceTables.find((t) => t.name === name)!;
            const targetTable = targetTables.get(name)!;
            report({ table: name, done: 0, total, finished: false });
            const onBatch = (done: number) => report({ table: name, done, total: Math.max(total, done), finished: false });
            const rows = await copyTable(reader, writer, { source: sourceTable, target: targetTable, targetDialect: into.dialect, batchSize, onBatch });
            await continueSequence(writer, into.dialect, targetTable, positions.get(name) ?? 0);
            report({ table: name, done: rows, total: rows, finished: true });
            tables.push({ table: name, rows, ms: performance.now() - tableStarted });
          }
        }),
      );
      return { tables, ms: performance.now() - started, replaced, partitions, secretCopied: secret.rows.length > 0 };
    });
  } finally {
    await source.db.destroy().catch(() => {});
    await target?.db.destroy().catch(() => {});
  }
}
