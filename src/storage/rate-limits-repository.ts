import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Hits of a key in its current window, and the milliseconds until the window ends. */
export interface WindowCount {
  count: number;
  ttlMs: number;
}

/**
 * Fixed-window counters in the database, so that every process on one PostgreSQL counts into the
 * same windows. One statement per hit (an upsert that starts a new window once the old one has
 * ended), so concurrent hits from several processes never lose a count.
 */
export class RateLimitsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async hit(key: string, windowMs: number, now = Date.now()): Promise<WindowCount> {
    const row = await this.db
      .insertInto('rate_limits')
      .values({ key, count: 1, reset_at: now + windowMs })
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          count: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN 1 ELSE rate_limits.count + 1 END`,
          reset_at: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN ${now + windowMs} ELSE rate_limits.reset_at END`,
        }),
      )
      .returning(['count', 'reset_at'])
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), ttlMs: Number(row.reset_at) - now };
  }

  /**
   * Several keys' hits in one statement, `count` hits each (keys unique): what a process counted
   * locally since it last told the database. Rows are written in key order, so two processes
   * adding up the same keys lock them in one order and never deadlock. Each key's total in its
   * current window comes back.
   */
  async hitMany(hits: readonly { key: string; count: number; windowMs: number }[], now = Date.now()): Promise<Map<string, WindowCount>> {
    const totals = new Map<string, WindowCount>();
    if (hits.length === 0) return totals;
    const sorted = [...hits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const rows = await this.db
      .insertInto('rate_limits')
      .values(sorted.map((hit) => ({ key: hit.key, count: hit.count, reset_at: now + hit.windowMs })))
      .onConflict((conflict) =>
        conflict.column('key').doUpdateSet({
          count: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN excluded.count ELSE rate_limits.count + excluded.count END`,
          reset_at: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN excluded.reset_at ELSE rate_limits.reset_at END`,
        }),
      )
      .returning(['key', 'count', 'reset_at'])
      .execute();
    for (const row of rows) totals.set(row.key, { count: Number(row.count), ttlMs: Number(row.reset_at) - now });
    return totals;
  }

  async read(key: string, now = Date.now()): Promise<WindowCount> {
    const row = await this.db.selectFrom('rate_limits').select(['count', 'reset_at']).where('key', '=', key).where('reset_at', '>', now).executeTakeFirst();
    return row ? { count: Number(row.count), ttlMs: Number(row.reset_at) - now } : { count: 0, ttlMs: 0 };
  }

  /** Forgets windows that ended before `now`; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    const result = await this.db.deleteFrom('rate_limits').where('reset_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
