import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UplinkKind } from '../retention-repository.js';

/** How many months after the current one keep a partition ready, so no uplink lands in the default. */
export const MONTHS_AHEAD = 3;

/**
 * The time-partitioned tables (PostgreSQL, migration 0014): the partition key and its unit, the
 * column retention ages rows by, the rows elsewhere that go with a row, and those that forget it
 * (once foreign-key cascades, now delete triggers, which dropping a partition does not fire).
 */
export const PARTITIONED = {
  messages: { table: 'messages', key: 'when_ms', perSecond: 1000, age: 'when_ms', dependents: { table: 'deliveries', column: 'message_id' }, referrers: [] },
  raw: { table: 'raw_messages', key: 'time_s', perSecond: 1, age: 'received_at', dependents: { table: 'rinfos', column: 'raw_id' }, referrers: [{ table: 'messages', column: 'raw_id' }] },
} as const satisfies Record<UplinkKind, unknown>;

export interface TimePartition {
  name: string;
  /** Bounds in epoch milliseconds, `from` included and `to` excluded; both absent for the default partition. */
  from?: number;
  to?: number;
}

/** Start of the UTC calendar month `offset` months after the one holding `ms`. */
export function monthStart(ms: number, offset = 0): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1);
}

/** `messages_y2026m11`: the partition of a table holding the month starting at `ms`. */
export function partitionName(table: string, ms: number): string {
  const date = new Date(ms);
  return `${table}_y${date.getUTCFullYear()}m${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The table's partitions, oldest first, default last; undefined when the table is not partitioned. */
export async function partitionsOf(db: Kysely<Database>, kind: UplinkKind): Promise<TimePartition[] | undefined> {
  const { table, perSecond } = PARTITIONED[kind];
  const { rows: kinds } = await sql<{ relkind: string }>`select relkind from pg_class where oid = ${`public.${table}`}::regclass`.execute(db);
  if (kinds[0]?.relkind !== 'p') return undefined;
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${`public.${table}`}::regclass`.execute(db);
  const toMs = (value: string) => (Number(value) * 1000) / perSecond;
  return rows
    .map(({ name, bound }) => {
      const range = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound);
      return range ? { name, from: toMs(range[1]!), to: toMs(range[2]!) } : { name };
    })
    .sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity));
}

/**
 * Creates the month holding `now` and the `ahead` months after it, where missing, for every
 * partitioned table. A month whose rows already sit in the default partition (snsr was stopped past
 * the months made ahead) cannot be created over them: it is left out, its rows stay in the default
 * partition and are pruned row by row. Several processes may run this at once; a month whose table
 * lock is not had within a second waits for the next call.
 */
export async function createPartitionsAhead(db: Kysely<Database>, now: number, ahead = MONTHS_AHEAD): Promise<{ created: string[]; refused: string[] }> {
  const created: string[] = [];
  const refused: string[] = [];
  for (const kind of Object.keys(PARTITIONED) as UplinkKind[]) {
    const { table, perSecond } = PARTITIONED[kind];
    const existing = await partitionsOf(db, kind);
    if (existing === undefined) continue;
    for (let offset = 0; offset <= ahead; offset++) {
      const from = monthStart(now, offset);
      if (existing.some((partition) => partition.from === from)) continue;
      const name = partitionName(table, from);
      const bound = (ms: number) => sql.lit((ms / 1000) * perSecond);
      try {
        await db.transaction().execute(async (trx) => {
          // The parent's lock, had at once or not now: ingestion must not queue behind this statement.
          await sql`set local lock_timeout = '1s'`.execute(trx);
          await sql`create table if not exists ${sql.table(name)} partition of ${sql.table(table)} for values from (${bound(from)}) to (${bound(monthStart(now, offset + 1))})`.execute(trx);
        });
        created.push(name);
      } catch (error) {
        // 42P07, 23505: another process made it meanwhile; 55P03: a lock not had in time (the next
        // round tries again, months ahead); 23514: the default partition holds rows of that month.
        const code = (error as { code?: string }).code;
        if (code === '42P07' || code === '23505' || code === '55P03') continue;
        if (code === '23514') refused.push(name);
        else throw error;
      }
    }
  }
  return { created, refused };
}
