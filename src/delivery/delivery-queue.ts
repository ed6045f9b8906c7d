import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Capabilities } from '../storage/capabilities.js';
import type { Database, MessageRow } from '../storage/schema.js';

/** A delivery this process holds a lease on, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  uuid: string;
  appId: number;
  /** sends made before this one */
  attempts: number;
  callbackUrl: string | null;
  secret: string;
  message: MessageRow;
  deviceSerial: string;
}

export interface ClaimRequest {
  owner: string;
  leaseMs: number;
  /** deliveries to claim at most */
  limit: number;
  /** how many more of this app's deliveries the caller can send now */
  allowance: (appId: number) => number;
}

/** What one send did to a delivery. */
export type Completion =
  | { status: 'delivered'; attempts: number; statusCode: number }
  | { status: 'pending'; attempts: number; statusCode: number | null; error: string; nextAttemptAt: number }
  | { status: 'failed'; attempts: number; statusCode: number | null; error: string };

const due = (now: number) => (eb: ExpressionBuilder<Database, 'deliveries'>) =>
  eb.and([
    eb('status', '=', 'pending'),
    eb('next_attempt_at', '<=', now),
    eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
  ]);

/**
 * The worker's side of the deliveries table: claim due rows under a lease, record what each send
 * did, hand back unsent claims, prune old rows. Every write after a claim checks `lease_owner`, so a
 * process that lost its lease (it stalled past it and another took over) cannot overwrite the
 * newer claim.
 */
export class DeliveryQueue {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Capabilities,
  ) {}

  async claim(request: ClaimRequest, now = Date.now()): Promise<ClaimedDelivery[]> {
    if (request.limit <= 0) return [];
    const picked = await this.pick(request, now);
    if (picked.length === 0) return [];
    const lease = { lease_owner: request.owner, lease_until: now + request.leaseMs, updated_at: now };
    let ids: number[];
    if (this.capabilities.skipLocked) {
      // Only the picked rows are locked, and rows another process is claiming right now are skipped
      // rather than waited for; re-checking due-ness drops any it claimed since the pick.
      ids = await this.db.transaction().execute(async (trx) => {
        const free = await trx.selectFrom('deliveries').select('id').where('id', 'in', picked).where(due(now)).forUpdate().skipLocked().execute();
        const lockedIds = free.map((row) => row.id);
        if (lockedIds.length > 0) await trx.updateTable('deliveries').set(lease).where('id', 'in', lockedIds).execute();
        return lockedIds;
      });
    } else {
      // SQLite: one statement is atomic, and re-checking due-ness in it means a row another process
      // leased between the pick and this write is not taken twice.
      const rows = await this.db.updateTable('deliveries').set(lease).where('id', 'in', picked).where(due(now)).returning('id').execute();
      ids = rows.map((row) => row.id);
    }
    return this.load(ids);
  }

  /**
   * Oldest due first, at most `allowance(app)` per app: an app with a long backlog fills its own
   * share and is then left out of the query, so other apps' deliveries are reached behind it.
   */
  private async pick(request: ClaimRequest, now: number): Promise<number[]> {
    const picked: number[] = [];
    const taken = new Map<number, number>();
    const saturated = new Set<number>();
    const scan = Math.min(1000, Math.max(64, request.limit * 4));
    let after: { next: number; id: number } | undefined;
    for (let round = 0; round < 4 && picked.length < request.limit; round++) {
      let query = this.db.selectFrom('deliveries').select(['id', 'app_id', 'next_attempt_at']).where(due(now));
      if (saturated.size > 0) query = query.where('app_id', 'not in', [...saturated]);
      if (after) {
        const { next, id } = after;
        query = query.where((eb) => eb(eb.refTuple('next_attempt_at', 'id'), '>', eb.tuple(next, id)));
      }
      const candidates = await query.orderBy('next_attempt_at').orderBy('id').limit(scan).execute();
      for (const candidate of candidates) {
        if (picked.length >= request.limit) break;
        const used = taken.get(candidate.app_id) ?? 0;
        if (used < request.allowance(candidate.app_id)) {
          picked.push(candidate.id);
          taken.set(candidate.app_id, used + 1);
        } else saturated.add(candidate.app_id);
      }
      if (candidates.length < scan) break;
      const last = candidates[candidates.length - 1]!;
      after = { next: last.next_attempt_at, id: last.id };
    }
    return picked;
  }

  private async load(ids: number[]): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('deliveries')
      .innerJoin('apps', 'apps.id', 'deliveries.app_id')
      .innerJoin('messages', 'messages.id', 'deliveries.message_id')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .selectAll('messages')
      .select([
        'deliveries.id as delivery_id',
        'deliveries.uuid as delivery_uuid',
        'deliveries.app_id as delivery_app_id',
        'deliveries.attempts as delivery_attempts',
        'apps.callback_url as app_callback_url',
        'apps.secret as app_secret',
        'devices.serial as device_serial',
      ])
      .where('deliveries.id', 'in', ids)
      .orderBy('deliveries.id')
      .execute();
    return rows.map(({ delivery_id, delivery_uuid, delivery_app_id, delivery_attempts, app_callback_url, app_secret, device_serial, ...message }) => ({
      id: delivery_id,
      uuid: delivery_uuid,
      appId: delivery_app_id,
      attempts: delivery_attempts,
      callbackUrl: app_callback_url,
      secret: app_secret,
      message,
      deviceSerial: device_serial,
    }));
  }

  /** Records a send; false when the lease was lost meanwhile (then the newer holder's word stands). */
  async complete(owner: string, id: number, completion: Completion, now = Date.now()): Promise<boolean> {
    return (await this.completeMany(owner, [{ id, completion }], now)).has(id);
  }

  /**
   * Records many sends in one transaction: one commit instead of one per send is most of the cost
   * of a delivery on both databases. Returns the ids recorded; a missing id lost its lease.
   */
  async completeMany(owner: string, items: { id: number; completion: Completion }[], now = Date.now()): Promise<Set<number>> {
    if (items.length === 0) return new Set();
    return this.db.transaction().execute(async (trx) => {
      const recorded = new Set<number>();
      const delivered = new Map<number, number[]>();
      for (const { id, completion } of items) {
        if (completion.status === 'delivered') delivered.set(completion.statusCode, [...(delivered.get(completion.statusCode) ?? []), id]);
      }
      // The common case, one statement per status code: attempts + 1 equals the claimed count + 1
      // because the lease (checked in the same statement) kept anyone else from sending meanwhile.
      for (const [statusCode, ids] of delivered) {
        const rows = await trx
          .updateTable('deliveries')
          .set((eb) => ({
            status: 'delivered',
            attempts: eb('attempts', '+', 1),
            last_status_code: statusCode,
            last_error: null,
            // A delivered row keeps the time of its last send here, so pruning walks the (status,
            // next_attempt_at) index instead of scanning every delivered row.
            next_attempt_at: now,
            delivered_at: now,
            lease_owner: null,
            lease_until: null,
            updated_at: now,
          }))
          .where('id', 'in', ids)
          .where('lease_owner', '=', owner)
          .where('status', '=', 'pending')
          .returning('id')
          .execute();
        for (const row of rows) recorded.add(row.id);
      }
      for (const { id, completion } of items) {
        if (completion.status === 'delivered') continue;
        const result = await trx
          .updateTable('deliveries')
          .set({
            status: completion.status,
            attempts: completion.attempts,
            last_status_code: completion.statusCode,
            last_error: completion.error,
            next_attempt_at: completion.status === 'pending' ? completion.nextAttemptAt : now,
            lease_owner: null,
            lease_until: null,
            updated_at: now,
          })
          .where('id', '=', id)
          .where('lease_owner', '=', owner)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (result.numUpdatedRows > 0n) recorded.add(id);
      }
      return recorded;
    });
  }

  /** Hands claims back untouched (shutdown): they are due again at once for any worker. */
  async release(owner: string, ids: number[], now = Date.now()): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('deliveries')
      .set({ lease_owner: null, lease_until: null, updated_at: now })
      .where('id', 'in', ids)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'pending')
      .execute();
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
            .where('status', '=', 'delivered')
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
