import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Capabilities } from '../storage/capabilities.js';
import type { Database } from '../storage/schema.js';
import { BOUND_IDLE, claimDeliveries, databaseNow } from './delivery-claims.js';
import type { ClaimRequest, ClaimedDelivery, Lease } from './delivery-claims.js';
import { TickBatch } from './tick-batch.js';
import { analyzeStale, autovacuumOff } from '../storage/postgres/table-statistics.js';
import { announceOutcomes } from './delivery-outcomes.js';

export type { ClaimRequest, ClaimedDelivery, Lease } from './delivery-claims.js';

/**
 * What one send did to a delivery. `attempts` is what the row keeps: the claim's count, or one less
 * when nothing was sent after all. A retry is due `retryInMs` from now on the database clock.
 */
export type Completion = (
  | { status: 'delivered'; attempts: number; statusCode: number }
  | { status: 'pending'; attempts: number; statusCode: number | null; error: string; retryInMs: number }
  | { status: 'failed'; attempts: number; statusCode: number | null; error: string }
) & {
  /** How long the request took (the webhook health's latency); absent when nothing was sent. */
  latencyMs?: number;
};

/**
 * Each delivered row's own latency in the one statement of its group: `CASE id WHEN … THEN … END`,
 * integers written out (both values are numbers this process computed).
 */
function latencyCases(latencies: Map<number, number>) {
  if (latencies.size === 0) return null;
  const cases = [...latencies].map(([id, ms]) => sql`when ${sql.lit(Math.trunc(id))} then ${sql.lit(Math.round(ms))}`);
  return sql<number | null>`case id ${sql.join(cases, sql` `)} else null end`;
}

export interface LeasedItem {
  id: number;
  lease: Lease;
}

/**
 * The worker's side of the deliveries table: claim due rows under a lease, record what each send
 * did, hand back unsent claims, prune old rows. Every write after a claim checks the lease, so a
 * process that lost it (it stalled past it and another took over) cannot overwrite the newer claim.
 */
export class DeliveryQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Capabilities,
  ) {}

  private readonly fences = new TickBatch<LeasedItem, number>((items) => this.leaseEnds(items), 0);

  claim(request: ClaimRequest): Promise<ClaimedDelivery[]> {
    return claimDeliveries(this.db, this.capabilities, request);
  }

  /**
   * The fence as a send starts: the `performance.now()` until which the claim's lease surely holds,
   * read on the database clock; 0 when it is lost (taken over, handed back, or the row is gone).
   * Sends starting together share one query.
   */
  leaseEnd(item: LeasedItem): Promise<number> {
    return this.fences.get(item);
  }

  private async leaseEnds(items: LeasedItem[]): Promise<Map<LeasedItem, number>> {
    // Asked before the database read its clock: the lease ends no sooner than `asked + remaining`.
    // Found by id alone: a row still under the lease is pending (see `leased`).
    const asked = performance.now();
    const rows = await this.db
      .selectFrom('deliveries')
      .select(['id', 'lease_owner', 'lease_until', databaseNow(this.capabilities).as('now')])
      .where('id', 'in', items.map((item) => item.id))
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ends = new Map<LeasedItem, number>();
    for (const item of items) {
      const row = byId.get(item.id);
      if (row?.lease_owner !== item.lease.owner || Number(row.lease_until) !== item.lease.until) continue;
      ends.set(item, asked + item.lease.until - Number(row.now));
    }
    return ends;
  }

  /** Records a send; false when the lease was lost meanwhile (then the newer holder's word stands). */
  async complete(lease: Lease, id: number, completion: Completion, now = Date.now()): Promise<boolean> {
    return (await this.completeMany([{ id, lease, completion }], now)).has(id);
  }

  /**
   * Records many sends in one transaction: one commit instead of one per send is most of the cost
   * of a delivery on both databases. Returns the ids recorded; a missing id lost its lease. Every
   * write names the lease it was claimed under (owner and end), so a worker's report about a claim
   * it lost cannot touch the row — even when the same worker has claimed it again since.
   */
  async completeMany(items: (LeasedItem & { completion: Completion })[], now = Date.now()): Promise<Set<number>> {
    if (items.length === 0) return new Set();
    return this.db.transaction().execute(async (trx) => {
      if (this.capabilities.dialect === 'postgres') await sql`select ${BOUND_IDLE}`.execute(trx);
      const recorded = new Set<number>();
      // The common case, one statement per claim and status code (a batch holds a few claims).
      const delivered = new Map<string, { lease: Lease; statusCode: number; ids: number[]; latencies: Map<number, number> }>();
      for (const { id, lease, completion } of items) {
        if (completion.status !== 'delivered') continue;
        const key = `${lease.owner}\n${lease.until}\n${completion.statusCode}`;
        const group = delivered.get(key) ?? { lease, statusCode: completion.statusCode, ids: [], latencies: new Map<number, number>() };
        group.ids.push(id);
        if (completion.latencyMs !== undefined) group.latencies.set(id, completion.latencyMs);
        delivered.set(key, group);
      }
      for (const { lease, statusCode, ids, latencies } of delivered.values()) {
        const rows = await this.leased(trx, ids, lease)
          .set({
            status: 'delivered',
            // Each row its own latency, still in one statement per group.
            last_latency_ms: latencyCases(latencies),
            last_status_code: statusCode,
            last_error: null,
            // A delivered row keeps the time of its last send here, so pruning walks the (status,
            // next_attempt_at) index instead of scanning every delivered row.
            next_attempt_at: now,
            delivered_at: now,
            lease_owner: null,
            lease_until: null,
            updated_at: now,
          })
          .returning('id')
          .execute();
        for (const row of rows) recorded.add(row.id);
      }
      for (const { id, lease, completion } of items) {
        if (completion.status === 'delivered') continue;
        const result = await this.leased(trx, [id], lease)
          .set((eb) => ({
            status: completion.status,
            attempts: completion.attempts,
            last_status_code: completion.statusCode,
            last_error: completion.error,
            ...(completion.latencyMs !== undefined && { last_latency_ms: completion.latencyMs }),
            next_attempt_at: completion.status === 'pending' ? eb(databaseNow(this.capabilities), '+', completion.retryInMs) : now,
            lease_owner: null,
            lease_until: null,
            updated_at: now,
          }))
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) recorded.add(id);
      }
      await announceOutcomes(trx, now, recorded);
      return recorded;
    });
  }

  /** Hands claims back unsent (shutdown, or too late to send): due again at once, the attempt not counted. */
  async release(items: LeasedItem[], now = Date.now()): Promise<void> {
    const byLease = new Map<string, { lease: Lease; ids: number[] }>();
    for (const { id, lease } of items) {
      const key = `${lease.owner}\n${lease.until}`;
      byLease.set(key, { lease, ids: [...(byLease.get(key)?.ids ?? []), id] });
    }
    for (const { lease, ids } of byLease.values()) {
      await this.leased(this.db, ids, lease)
        .set((eb) => ({ lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1), updated_at: now }))
        .execute();
    }
  }

  /**
   * The rows among `ids` still under this lease. No status test: every change of status clears the
   * lease, so a row still under one is pending, and the rows are found by id alone.
   */
  private leased(db: Kysely<Database>, ids: number[], lease: Lease) {
    return db.updateTable('deliveries').where('id', 'in', ids).where('lease_owner', '=', lease.owner).where('lease_until', '=', lease.until);
  }

  /**
   * PostgreSQL: the statistics of the outbox, and of the messages a claim loads, taken again where
   * they went stale (see `analyzeStale`); returns the tables analyzed. SQLite's reads are written to
   * be planned well without any (test/delivery/queue-reads.test.ts).
   */
  refreshStatistics(): Promise<string[]> {
    return this.capabilities.dialect === 'postgres' ? analyzeStale(this.db, ['deliveries', 'messages']) : Promise.resolve([]);
  }

  /** PostgreSQL run without autovacuum: the outbox's dead rows are never reclaimed. */
  vacuumOff(): Promise<boolean> {
    return this.capabilities.dialect === 'postgres' ? autovacuumOff(this.db) : Promise.resolve(false);
  }

  /**
   * Deletes delivered rows delivered before `cutoff`, in small batches so SQLite's single writer is
   * never held long. Failed rows stay: they are what the log is for.
   */
  async prune(cutoff: number, batch = 2000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await this.db
        .deleteFrom('deliveries')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('deliveries')
            .select('id')
            .where(sql<boolean>`status = 'delivered'`)
            .where('next_attempt_at', '<', cutoff)
            .where('delivered_at', '<', cutoff)
            .limit(batch),
        )
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < batch) return total;
    }
  }
}
