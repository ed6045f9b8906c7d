import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { PENDING } from '../delivery/due-picks.js';

/**
 * The outbox's backlog as the metrics show it: pending deliveries and the age of the oldest one.
 * Both gauges read it on one scrape: one query, shared for a moment.
 */
export function queueStats(db: Kysely<Database>, now = Date.now): () => Promise<{ depth: number; oldestMs: number }> {
  let last: { at: number; value: Promise<{ depth: number; oldestMs: number }> } | undefined;
  return () => {
    const at = now();
    if (last && at - last.at < 1000) return last.value;
    const value = db
      .selectFrom('deliveries')
      .select((eb) => [eb.fn.countAll<number>().as('depth'), eb.fn.min('created_at').as('oldest')])
      .where(PENDING)
      .executeTakeFirstOrThrow()
      .then((row) => ({ depth: Number(row.depth), oldestMs: row.oldest === null ? 0 : Math.max(0, at - Number(row.oldest)) }));
    last = { at, value };
    value.catch(() => (last = undefined));
    return value;
  };
}
