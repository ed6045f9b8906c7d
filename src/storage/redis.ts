import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type { Redis };

/**
 * The Redis client rate limits share. A request never waits for a Redis that is down (no offline
 * queue, one attempt): the limiter skips it and the error is logged once per outage.
 */
export async function connectRedis(url: string, log: Logger): Promise<Redis> {
  // Loaded only when SNSR_REDIS_URL is set: every CLI command builds a context, and most never use it.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) log.warn({ err: error }, 'Redis is unreachable: rate limits are not enforced until it is back');
    down = true;
  });
  redis.on('ready', () => (down = false));
  return redis;
}
