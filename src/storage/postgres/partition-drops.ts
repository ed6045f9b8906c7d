import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UplinkKind } from '../retention-repository.js';
import { PARTITIONED, createPartitionsAhead, partitionsOf } from './time-partitions.js';

/** A module whose rows aged `since` (epoch ms) or later must stay: a longer retention than the default, or forever. */
export interface Keeper {
  serial: string;
  since: number;
}

/** How long a drop waits for the tables' locks before giving up until the next round. */
const LOCK_TIMEOUT = '1s';

/**
 * Drops the month partitions of a kind whose every row is past its retention: the month ends by
 * `before` (the operator's default cut-off), no row in it is aged `before` or later (raw messages
 * are partitioned by network time but aged by reception time), and no keeper module has a row in it
 * that its own retention keeps. Other partitions, the default one included, are left to the
 * row-batch pruner. Each drop runs in its own transaction that first locks the partition (so no
 * late row slips in between the checks and the drop), deletes the rows that went with its rows
 * (deliveries, rinfos), clears references to them (messages.raw_id) and drops it; a lock not had within a second leaves it for the next round.
 */
export async function dropExpiredPartitions(db: Kysely<Database>, kind: UplinkKind, before: number, keepers: Keeper[]): Promise<{ partitions: number; rows: number }> {
  const { age, dependents, referrers } = PARTITIONED[kind];
  const expired = ((await partitionsOf(db, kind)) ?? []).filter((partition) => partition.to !== undefined && partition.to <= before);
  let partitions = 0;
  let rows = 0;
  for (const { name } of expired) {
    try {
      const dropped = await db.transaction().execute(async (trx) => {
        const part = sql.table(name);
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
        await sql`lock table ${part} in access exclusive mode`.execute(trx);
        const young = await sql`select 1 from ${part} where ${sql.ref(age)} >= ${before} limit 1`.execute(trx);
        if (young.rows.length > 0) return undefined;
        if (keepers.length > 0) {
          const kept = await sql`
            select 1 from unnest(${keepers.map((k) => k.serial)}::text[], ${keepers.map((k) => k.since)}::bigint[]) as k(serial, since)
            join ${part} p on p.module_serial = k.serial and p.${sql.ref(age)} >= k.since limit 1`.execute(trx);
          if (kept.rows.length > 0) return undefined;
        }
        const { rows: counted } = await sql<{ n: string }>`select count(*) as n from ${part}`.execute(trx);
        await sql`delete from ${sql.table(dependents.table)} where ${sql.ref(dependents.column)} in (select id from ${part})`.execute(trx);
        for (const { table, column } of referrers) {
          await sql`update ${sql.table(table)} set ${sql.ref(column)} = null where ${sql.ref(column)} in (select id from ${part})`.execute(trx);
        }
        await sql`drop table ${part}`.execute(trx);
        return Number(counted[0]!.n);
      });
      if (dropped === undefined) continue;
      partitions += 1;
      rows += dropped;
    } catch (error) {
      // 55P03: a lock not had in time; 40P01: a deadlock with a reader. Both wait for the next round.
      const code = (error as { code?: string }).code;
      if (code !== '55P03' && code !== '40P01') throw error;
    }
  }
  return { partitions, rows };
}

/** PostgreSQL's time partitions as the retention pruner uses them: made ahead, dropped whole when expired. */
export interface TimePartitions {
  ensureAhead(now: number): Promise<{ created: string[]; refused: string[] }>;
  dropExpired(kind: UplinkKind, before: number, keepers: Keeper[]): Promise<{ partitions: number; rows: number }>;
}

export const timePartitions = (db: Kysely<Database>): TimePartitions => ({
  ensureAhead: (now) => createPartitionsAhead(db, now),
  dropExpired: (kind, before, keepers) => dropExpiredPartitions(db, kind, before, keepers),
});
