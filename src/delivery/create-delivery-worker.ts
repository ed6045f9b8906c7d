import type { Logger } from 'pino';
import { parseDatabaseUrl } from '../config.js';
import type { Config } from '../config.js';
import { LocalSlots, PostgresSlots } from './app-slots.js';
import type { AppSlots } from './app-slots.js';
import { RedisSlots } from './redis-slots.js';
import type { Redis } from '../storage/redis.js';
import type { Storage } from '../storage/storage.js';
import { CallbackSender } from './callback-sender.js';
import { DeliveryQueue } from './delivery-queue.js';
import { DeliveryWorker } from './delivery-worker.js';
import type { WorkerOptions } from './delivery-worker.js';

export interface DeliveryWorkerOptions extends WorkerOptions {
  /** Total time one callback request may take. */
  timeoutMs?: number;
  /** `snsr/<version>` */
  userAgent: string;
  /** With `SNSR_REDIS_URL`: per-app sending slots live there instead of in PostgreSQL. */
  redis?: Redis;
}

/** A worker over the storage's outbox, sending with the configured limits; not started yet. */
export function createDeliveryWorker(storage: Storage, config: Config, log: Logger, options: DeliveryWorkerOptions): DeliveryWorker {
  const sender = new CallbackSender({
    timeoutMs: options.timeoutMs ?? config.delivery.timeoutMs,
    allowPrivate: config.delivery.allowPrivateTargets,
    userAgent: options.userAgent,
  });
  const workerLog = log.child({ component: 'delivery' });
  const target = parseDatabaseUrl(config.databaseUrl);
  // SQLite belongs to one process, so this worker's own count is the global one.
  const onSlotError = (error: unknown) => workerLog.warn({ err: error }, 'delivery slots unreachable; sends wait until slots can be had');
  // SQLite belongs to one process, so this worker's own count is the global one.
  let slots: AppSlots = new LocalSlots(config.delivery.perAppConcurrency);
  if (target.dialect === 'postgres') {
    slots = options.redis
      ? new RedisSlots(options.redis, config.delivery.perAppConcurrency, options.leaseMs ?? config.delivery.leaseMs, onSlotError)
      : new PostgresSlots(target.url, config.delivery.perAppConcurrency, onSlotError);
  }
  return new DeliveryWorker(new DeliveryQueue(storage.db, storage.capabilities), sender, config.delivery, workerLog, storage.notifier, slots, options);
}
