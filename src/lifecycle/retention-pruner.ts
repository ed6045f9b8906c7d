import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { RetentionRepository, UplinkKind } from '../storage/retention-repository.js';
import { backgroundJob } from './background-job.js';
import type { BackgroundJob } from './background-job.js';

const DAY = 86_400_000;

export interface RetentionPrunerOptions {
  /** Rows per delete: small, so ingestion waits at most one short statement for the database. */
  batch?: number;
  intervalMs?: number;
  now?: () => number;
}

/** One round prunes everything past its retention, batch by batch, and counts per kind. */
export type RetentionPruner = BackgroundJob<{ messages: number; raw: number; alerts: number }>;

/**
 * Deletes messages, raw uplinks and ended alerts past their retention: each module's owner's choice,
 * else the operator's default (0: kept forever). Device counters (`msgs`, `losts`, `alerts`) live on
 * the device rows and are not derived from the deleted rows, so they stay true. Several processes on
 * one PostgreSQL may each run one: they delete the same old rows, which is harmless.
 */
export function startRetentionPruner(repository: RetentionRepository, defaults: Config['retention'], log: Logger, options: RetentionPrunerOptions = {}): RetentionPruner {
  const batch = options.batch ?? 500;
  const now = options.now ?? Date.now;
  return backgroundJob(
    async ({ drain }) => {
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
      const deleted = {
        messages: await pruneKind('messages', defaults.messagesDays),
        raw: await pruneKind('raw', defaults.rawDays),
        alerts: defaults.alertsDays > 0 ? await drain(() => repository.deleteEndedAlerts(now() - defaults.alertsDays * DAY, batch)) : 0,
      };
      if (deleted.messages + deleted.raw + deleted.alerts > 0) log.info({ deleted }, 'pruned data past its retention');
      return deleted;
    },
    { name: 'pruning data past its retention', log, batch, intervalMs: options.intervalMs },
  );
}
