import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { publish } from '../storage/notifications.js';

interface Message {
  id: number;
  module_serial: string;
}

/**
 * The outbox: one pending delivery per (message, attached app with a callback URL), written in the
 * ingest transaction that stores the message, so a message is never stored without its deliveries
 * nor delivered without being stored. The unique (app_id, message_id) index makes a second call for
 * the same message a no-op. Workers in every process are woken on the `deliveries` channel once
 * the transaction commits (never before: they would find nothing). Returns how many were queued.
 */
export async function enqueueDeliveries(db: Kysely<Database>, message: Message, now = Date.now()): Promise<number> {
  const [queued] = await enqueueDeliveriesOf(db, [message], now);
  return queued;
}

/** The same for several messages at once (two statements in all); how many were queued for each. */
export async function enqueueDeliveriesOf(db: Kysely<Database>, messages: readonly Message[], now = Date.now()): Promise<number[]> {
  const serials = [...new Set(messages.map((message) => message.module_serial))];
  const apps = await db
    .selectFrom('app_modules')
    .innerJoin('apps', 'apps.id', 'app_modules.app_id')
    .select(['apps.id', 'app_modules.module_serial'])
    .where('app_modules.module_serial', 'in', serials)
    .where('apps.callback_url', 'is not', null)
    .execute();
  if (apps.length === 0) return messages.map(() => 0);
  const rows = messages.flatMap((message) =>
    apps
      .filter((app) => app.module_serial === message.module_serial)
      .map((app) => ({ uuid: randomUUID(), app_id: app.id, message_id: message.id, status: 'pending', next_attempt_at: now, created_at: now, updated_at: now })),
  );
  if (rows.length === 0) return messages.map(() => 0);
  const inserted = await db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['app_id', 'message_id']).doNothing())
    .returning('message_id')
    .execute();
  if (inserted.length > 0) await publish(db, 'deliveries');
  return messages.map((message) => inserted.filter((row) => row.message_id === message.id).length);
}

/**
 * Alerts' outbox: one pending delivery per (alert, attached app with a callback URL), written in
 * the transaction that raises the alert (ingest's, or the watchdog's), on the unique
 * (app_id, alert_id) index. Workers are woken as for messages. Returns how many were queued.
 */
export async function enqueueAlertDeliveries(db: Kysely<Database>, alerts: readonly { id: number; moduleSerial: string }[], now = Date.now()): Promise<number> {
  if (alerts.length === 0) return 0;
  const apps = await db
    .selectFrom('app_modules')
    .innerJoin('apps', 'apps.id', 'app_modules.app_id')
    .select(['apps.id', 'app_modules.module_serial'])
    .where('app_modules.module_serial', 'in', [...new Set(alerts.map((alert) => alert.moduleSerial))])
    .where('apps.callback_url', 'is not', null)
    .execute();
  const rows = alerts.flatMap((alert) =>
    apps
      .filter((app) => app.module_serial === alert.moduleSerial)
      .map((app) => ({ uuid: randomUUID(), app_id: app.id, alert_id: alert.id, status: 'pending', next_attempt_at: now, created_at: now, updated_at: now })),
  );
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['app_id', 'alert_id']).doNothing())
    .returning('id')
    .execute();
  if (inserted.length > 0) await publish(db, 'deliveries');
  return inserted.length;
}
