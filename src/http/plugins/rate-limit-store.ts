import type { RateLimitsRepository } from '../../storage/rate-limits-repository.js';

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * An @fastify/rate-limit store over the database's `rate_limits` table: what several processes on
 * one PostgreSQL share when no Redis is configured. Keys are namespaced by the caller.
 */
export function databaseRateLimitStore(repository: RateLimitsRepository) {
  return class DatabaseRateLimitStore {
    incr(key: string, callback: Callback, timeWindow: number): void {
      repository.hit(key, timeWindow).then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), callback);
    }

    read(key: string, callback: Callback): void {
      repository.read(key).then(({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }), callback);
    }

    child(): DatabaseRateLimitStore {
      return this;
    }
  };
}
