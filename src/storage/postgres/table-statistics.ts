import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Changed rows that make a table's statistics stale: this many at least, and this share of its rows. */
const MIN_CHANGES = 1000;
const CHANGED_SHARE = 0.1;

/** The lock (key pair: "snsr", 2) that lets one process analyze at a time; the others skip the round. */
const ANALYZE_LOCK = sql`pg_try_advisory_xact_lock(1936618354, 2)`;

/**
 * Analyzes those of `tables` (and of their partitions) changed by a tenth of their rows since their
 * statistics were taken, and returns their names. A queue's plans hang on its statistics: until the
 * outbox was first analyzed, PostgreSQL took its pending rows for a handful, and read a 40,000-row
 * backlog whole for each claim of 32 (a bitmap scan and a sort instead of the index's first rows),
 * and every message table whole to load them. Autovacuum would analyze them, but up to a minute
 * after a burst, and never where it is turned off.
 */
export async function analyzeStale(db: Kysely<Database>, tables: readonly string[]): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const { rows: [lock] } = await sql<{ got: boolean }>`select ${ANALYZE_LOCK} as got`.execute(trx);
    if (!lock?.got) return [];
    const { rows } = await sql<{ name: string }>`
      with roots as (select unnest(${[...tables]}::text[])::regclass as relid)
      select s.relid::regclass::text as name from pg_stat_user_tables s
      where (s.relid in (select relid from roots) or s.relid in (select inhrelid from pg_inherits where inhparent in (select relid from roots)))
        and s.n_mod_since_analyze >= greatest(${MIN_CHANGES}::float8, ${CHANGED_SHARE}::float8 * s.n_live_tup)
      order by 1`.execute(trx);
    // Names as the catalog spells them (quoted where needed), never a caller's text.
    for (const { name } of rows) await sql`analyze ${sql.raw(name)}`.execute(trx);
    return rows.map((row) => row.name);
  });
}

/**
 * Whether the server runs without autovacuum. snsr takes the statistics it plans by itself, but
 * only a vacuum reclaims dead rows, and the outbox leaves two or three per delivery.
 */
export async function autovacuumOff(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ on: boolean }>`select current_setting('autovacuum')::boolean as on`.execute(db);
  return rows[0]?.on === false;
}
