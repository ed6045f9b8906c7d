import type { Kysely, Selectable } from 'kysely';
import type { Delivery, DeliveryLog, DeliveryPage, DeliveryStatus } from '../domain/deliveries.js';
import type { Database, DeliveriesTable } from '../storage/schema.js';

type Row = Selectable<DeliveriesTable> & { when_ms: number | null; raised_at: number | null };

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

const toDelivery = (row: Row): Delivery => ({
  id: row.id,
  uuid: row.uuid,
  appId: row.app_id,
  kind: row.alert_id === null ? 'message' : 'alert',
  messageId: row.message_id,
  alertId: row.alert_id,
  when: new Date(Number(row.when_ms ?? row.raised_at ?? row.created_at)),
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  nextAttempt: row.status === 'pending' ? new Date(row.next_attempt_at) : null,
  created: new Date(row.created_at),
  delivered: date(row.delivered_at),
});

/** The delivery log: what developers and operators read and re-queue. */
export class DeliveriesRepository implements DeliveryLog {
  constructor(private readonly db: Kysely<Database>) {}

  private select() {
    // A delivery has its message or its alert (never both), whose time the log shows.
    return this.db
      .selectFrom('deliveries')
      .leftJoin('messages', 'messages.id', 'deliveries.message_id')
      .leftJoin('alerts', 'alerts.id', 'deliveries.alert_id')
      .selectAll('deliveries')
      .select(['messages.when_ms', 'alerts.raised_at']);
  }

  /** Newest first, a keyset scan on the (app_id, id) index. */
  async list(appId: number, page: DeliveryPage): Promise<Delivery[]> {
    let query = this.select().where('deliveries.app_id', '=', appId);
    if (page.before !== undefined) query = query.where('deliveries.id', '<', page.before);
    if (page.status !== undefined) query = query.where('deliveries.status', '=', page.status);
    const rows = await query.orderBy('deliveries.app_id', 'desc').orderBy('deliveries.id', 'desc').limit(page.limit).execute();
    return rows.map(toDelivery);
  }

  async byId(id: number): Promise<Delivery | undefined> {
    const row = await this.select().where('deliveries.id', '=', id).executeTakeFirst();
    return row && toDelivery(row);
  }

  /** Queues a failed delivery again from scratch; undefined when it is not failed (any more). */
  async requeue(id: number, now = Date.now()): Promise<Delivery | undefined> {
    const result = await this.db
      .updateTable('deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'failed')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? this.byId(id) : undefined;
  }

  async appExists(appId: number): Promise<boolean> {
    return (await this.db.selectFrom('apps').select('id').where('id', '=', appId).executeTakeFirst()) !== undefined;
  }
}
