import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { WebhookActivity, WebhookLog } from '../domain/webhooks.js';
import type { Database } from '../storage/schema.js';

/** Rows re-queued per statement: SQLite's one writer is never held long, however many failed. */
const REQUEUE_BATCH = 500;

const count = (value: unknown) => Number(value ?? 0);

/**
 * An app's recent deliveries summed up for its webhook health, and bulk re-queueing of its failed
 * ones. Every read is a range scan of the (app_id, updated_at) index over the window asked for.
 */
export class WebhookLogRepository implements WebhookLog {
  constructor(private readonly db: Kysely<Database>) {}

  private recent(appId: number, since: number) {
    return this.db.selectFrom('deliveries').where('app_id', '=', appId).where('updated_at', '>=', since);
  }

  async activity(appId: number, since: number, maxSamples: number): Promise<WebhookActivity> {
    const sums = await this.recent(appId, since)
      .select([
        sql<number>`sum(case when status = 'delivered' then 1 else 0 end)`.as('delivered'),
        sql<number>`sum(case when status = 'failed' then 1 else 0 end)`.as('failed'),
        sql<number>`sum(case when status = 'pending' and attempts > 0 and last_error is not null then 1 else 0 end)`.as('retrying'),
        sql<number>`sum(case when status = 'pending' then 1 else 0 end)`.as('pending'),
      ])
      .executeTakeFirst();
    const latencies = await this.recent(appId, since)
      .select('last_latency_ms')
      .where('last_latency_ms', 'is not', null)
      .orderBy('updated_at', 'desc')
      .limit(maxSamples)
      .execute();
    const last = await this.recent(appId, since)
      .select(['id', 'updated_at', 'last_status_code', 'last_error'])
      .where('last_error', 'is not', null)
      .where('status', '!=', 'delivered')
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    const failedTotal = await this.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('app_id', '=', appId)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    const retrying = count(sums?.retrying);
    return {
      counts: { delivered: count(sums?.delivered), failed: count(sums?.failed), retrying, queued: count(sums?.pending) - retrying },
      failedTotal: count(failedTotal?.n),
      latencies: latencies.map((row) => Number(row.last_latency_ms)),
      lastError: last ? { delivery: last.id, at: new Date(Number(last.updated_at)), statusCode: last.last_status_code, error: last.last_error! } : null,
    };
  }

  async requeueFailed(appId: number, ids?: number[], now = Date.now()): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await this.db
        .updateTable('deliveries')
        .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, updated_at: now })
        .where('id', 'in', (eb) => {
          let failed = eb.selectFrom('deliveries').select('id').where('app_id', '=', appId).where('status', '=', 'failed');
          if (ids !== undefined) failed = failed.where('id', 'in', ids);
          return failed.limit(REQUEUE_BATCH);
        })
        .executeTakeFirst();
      const requeued = Number(result.numUpdatedRows);
      total += requeued;
      if (requeued < REQUEUE_BATCH) return total;
    }
  }
}
