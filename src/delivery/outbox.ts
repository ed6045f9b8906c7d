import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

// Tells delivery workers in this process that rows were queued, so they claim them now instead of at
// their next poll. Workers in other processes (or a transaction that rolls back) just poll as usual.
const signal = new EventEmitter().setMaxListeners(0);

/** Calls `listener` after deliveries were queued in this process; returns the unsubscribe function. */
export function onEnqueued(listener: () => void): () => void {
  signal.on('enqueued', listener);
  return () => signal.off('enqueued', listener);
}

/**
 * The outbox: one pending delivery per (message, attached app with a callback URL), written in the
 * ingest transaction that stores the message, so a message is never stored without its deliveries
 * nor delivered without being stored. The unique (app_id, message_id) index makes a second call for
 * the same message a no-op. Returns how many deliveries were queued.
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
  if (queued > 0) signal.emit('enqueued');
  return queued;
}
