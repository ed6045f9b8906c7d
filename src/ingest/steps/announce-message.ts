import { publish } from '../../storage/notifications.js';
import type { IngestStore } from '../ingest-store.js';

/**
 * Step 10: tells live streams in every process of the new message once the transaction commits
 * (`<id> <module>` on the messages channel); they read it themselves, and only if one could care.
 */
export async function announceMessage(store: IngestStore, message: { id: number; module: string }): Promise<void> {
  await publish(store.trx, 'messages', `${message.id} ${message.module}`);
}
