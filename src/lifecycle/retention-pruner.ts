import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RetentionRepository, UplinkKind } from '../storage/retention-repository.js';

const DAY = 86_400_000;
const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

export interface RetentionPrunerOptions {
  /** Rows per delete: small, so ingestion waits at most one short statement for the database. */
  batch?: number;
  intervalMs?: number;
  now?: () => number;
}

export interface RetentionPruner {
  /** One full round: everything past its retention, batch by batch. Counts per kind. */
  runOnce(): Promise<{ messages: number; raw: number; alerts: number }>;
  /** Runs a round shortly after start, then every `intervalMs` (an hour by default). */
  start(): RetentionPruner;
  stop(): Promise<void>;
}

/**
 * Deletes messages, raw uplinks and ended alerts past their retention: each module's owner's choice,
 * else the operator's default (0: kept forever). Device counters (`msgs`, `losts`, `alerts`) live on
 * the device rows and are not derived from the deleted rows, so they stay true. Several processes on
 * one PostgreSQL may each run one: they delete the same old rows, which is harmless.
 */
export function startRetentionPruner(repository: RetentionRepository, defaults: Config['retention'], log: Logger, options: RetentionPrunerOptions = {}): RetentionPruner {
  const batch = options.batch ?? 500;
  const now = options.now ?? Date.now;
  let stopped = false;
  let running: ReturnType<RetentionPruner['runOnce']> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const drain = async (task: () => Promise<number>): Promise<number> => {
    let total = 0;
    while (!stopped) {
      const count = await task();
      total += count;
      if (count < batch) break;
      await yieldToEventLoop();
    }
    return total;
  };
  const pruneKind = async (kind: UplinkKind, defaultDays: number): Promise<number> => {
    let total = 0;
    for (const { serial, days } of await repository.overrides(kind)) {
      // 0: the owner keeps this module's data forever (and the default's sweep leaves it alone).
      if (days === 0) continue;
      total += await drain(() => repository.deleteOlder(kind, now() - days * DAY, batch, serial));
    }
    if (defaultDays > 0) total += await drain(() => repository.deleteOlder(kind, now() - defaultDays * DAY, batch));
    return total;
  };
  const round = async () => {
    const deleted = {
      messages: await pruneKind('messages', defaults.messagesDays),
      raw: await pruneKind('raw', defaults.rawDays),
      alerts: defaults.alertsDays > 0 ? await drain(() => repository.deleteEndedAlerts(now() - defaults.alertsDays * DAY, batch)) : 0,
    };
    if (deleted.messages + deleted.raw + deleted.alerts > 0) log.info({ deleted }, 'pruned data past its retention');
    return deleted;
  };
  const runOnce = () => {
    running ??= round().finally(() => (running = undefined));
    return running;
  };
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => log.error({ err: error }, 'pruning data past its retention failed'))
        .finally(() => !stopped && schedule(options.intervalMs ?? 3_600_000));
    }, delay);
    timer.unref();
  };
  const pruner: RetentionPruner = {
    runOnce,
    start: () => (schedule(10_000), pruner),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
  return pruner;
}
