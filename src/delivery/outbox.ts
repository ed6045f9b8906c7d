import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { publish } from '../storage/notifications.js';

/**
 * The outbox: one pending delivery per (message, attached app with a callback URL), written in the
 * ingest transaction that stores the message, so a message is never stored without its deliveries
 * nor delivered without being stored. The unique (app_id, message_id) index makes a second call for
 * the same message a no-op. Workers in every process are woken on the `deliveries` channel once
 * the transaction commits (never before: they would find nothing). Returns how many were queued.
 */
export async function enqueueDeliveries(db: Kysely<Database>, message: { id: number; module_serial: string }, now = Date.now()): Promise<number> {
  const apps = await db
    .selectFrom('app_modules')
    .innerJoin('apps', 'apps.id', 'app_modules.app_id')
    .select('apps.id')
    .where('app_modules.module_serial', '=', message.module_serial)
    .where('apps.callback_url', 'is not', null)
    .execute();
  if (apps.length === 0) return 0;
  const result = await db
    .insertInto('deliveries')
    .values(
      apps.map((app) => ({
        uuid: randomUUID(),
        app_id: app.id,
        message_id: message.id,
        status: 'pending',
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['app_id', 'message_id']).doNothing())
    .executeTakeFirst();
  const queued = Number(result.numInsertedOrUpdatedRows ?? 0n);
  if (queued > 0) await publish(db, 'deliveries');
  return queued;
}
