import type { Kysely } from 'kysely';
import { publish } from '../storage/notifications.js';

/** Under a notification's limit with room to spare. */
const MAX_PAYLOAD = 7000;

/**
 * `<time> <id> <id> …`: the deliveries whose attempt outcomes a batch recorded, announced on the
 * `delivery_outcomes` channel so live streams (in every process on PostgreSQL) can show them.
 * Split so that no payload outgrows a notification.
 */
export function outcomePayloads(at: number, ids: Iterable<number>, maxBytes = MAX_PAYLOAD): string[] {
  const payloads: string[] = [];
  let current = String(at);
  for (const id of ids) {
    if (current.length + String(id).length + 1 > maxBytes) {
      payloads.push(current);
      current = String(at);
    }
    current += ` ${id}`;
  }
  if (current.includes(' ')) payloads.push(current);
  return payloads;
}

/** The time and ids of an outcomes payload; no ids when it is not one. */
export function parseOutcomes(payload: string): { at: number; ids: number[] } {
  const [at, ...ids] = payload.split(' ').map(Number);
  const valid = Number.isSafeInteger(at) && ids.every((id) => Number.isSafeInteger(id) && id > 0);
  return valid ? { at: at!, ids } : { at: 0, ids: [] };
}

/** Queues the announcement in `trx`: it is sent once (and only if) the outcomes are committed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: only the connection matters
export async function announceOutcomes(trx: Kysely<any>, at: number, ids: Set<number>): Promise<void> {
  for (const payload of outcomePayloads(at, ids)) await publish(trx, 'delivery_outcomes', payload);
}
