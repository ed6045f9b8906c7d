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
