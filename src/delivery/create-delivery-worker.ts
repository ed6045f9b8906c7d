import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { LocalSlots } from './app-slots.js';
import type { AppSlots } from './app-slots.js';
import { PostgresSlots } from './postgres-slots.js';
import { RedisSlots } from './redis-slots.js';
import type { Redis } from '../storage/redis.js';
import type { Storage } from '../storage/storage.js';
import { CallbackSender } from './callback-sender.js';
import { DeliveryQueue } from './delivery-queue.js';
import { DeliveryWorker, workerOwner } from './delivery-worker.js';
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
  const onSlotError = (error: unknown) => workerLog.warn({ err: error }, 'delivery slots unreachable; sends wait until slots can be had');
  const owner = options.owner ?? workerOwner();
  // Slots live as long as a lease: a stalled or dead worker's come free when its claims do.
  const lifetimeMs = options.leaseMs ?? config.delivery.leaseMs;
  const { perAppConcurrency } = config.delivery;
  // SQLite belongs to one process, so this worker's own count is the global one.
  let slots: AppSlots = new LocalSlots(perAppConcurrency);
  if (storage.capabilities.dialect === 'postgres') {
    slots = options.redis
      ? new RedisSlots(options.redis, perAppConcurrency, lifetimeMs, onSlotError)
      : new PostgresSlots(storage.db, owner, perAppConcurrency, lifetimeMs, onSlotError);
  }
  const queue = new DeliveryQueue(storage.db, storage.capabilities);
  return new DeliveryWorker(queue, sender, config.delivery, workerLog, storage.notifier, slots, { ...options, owner });
}
