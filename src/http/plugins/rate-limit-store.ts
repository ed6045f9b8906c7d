import type { RateLimitsRepository } from '../../storage/rate-limits-repository.js';
import type { QuotaCounts } from './quota-counts.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** The limiter option that picks batched counting (`QuotaCounts`) for a request quota. */
export const BATCHED = { counting: 'batched' } as const;

/**
 * An @fastify/rate-limit store over the database's `rate_limits` table: what several processes on
 * one PostgreSQL share when no Redis is configured. Keys are namespaced by the caller. Each hit is
 * one statement, except for limiters created with `BATCHED` (request quotas, counted on every
 * request): those count through `quotas`, which adds hits up in the database a few times a second.
 */
export function databaseRateLimitStore(repository: RateLimitsRepository, quotas: QuotaCounts) {
  const batched = {
    incr(key: string, callback: Callback, timeWindow: number): void {
      const { count, ttlMs } = quotas.hit(key, timeWindow);
      callback(null, { current: count, ttl: ttlMs });
    },
    read(key: string, callback: Callback): void {
      const { count, ttlMs } = quotas.read(key);
      callback(null, { current: count, ttl: ttlMs });
    },
    child() {
      return batched;
    },
  };

  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      repository.hit(key, timeWindow).then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), callback);
    }

    read(key: string, callback: Callback): void {
      repository.read(key).then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), callback);
    }

    /** The store of one limiter; gets the limiter's options (`BATCHED` among them or not). */
    child(options: object): DatabaseRateLimitStore | typeof batched {
      return (options as { counting?: string }).counting === BATCHED.counting ? batched : this;
    }
  };
}
