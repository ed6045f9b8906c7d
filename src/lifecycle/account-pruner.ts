import type { Logger } from 'pino';
import type { AuditService } from '../domain/audit.js';
import type { SessionService } from '../domain/sessions.js';
import type { SignupsRepository } from '../storage/signups-repository.js';
import type { PasswordResetsRepository } from '../storage/password-resets-repository.js';

export interface PrunerOptions {
  auditRetentionMs: number;
  /** Rows deleted per statement: small, so a big backlog never holds a lock (or SQLite) for long. */
  batch?: number;
  /** Pause between rounds once everything due is gone. */
  intervalMs?: number;
}

export interface Pruner {
  /** One full round: deletes everything due, batch by batch, yielding between batches. */
  runOnce(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Background clean-up of what accounts leave behind: audit entries past their retention, ended
 * sessions, expired sign-ups and password reset links. Several processes may run one each on a
 * shared PostgreSQL: they delete disjoint or already-deleted rows, which is harmless.
 */
export function startAccountPruner(
  parts: { audit: AuditService; sessions: SessionService; signups: SignupsRepository; resets: PasswordResetsRepository },
  log: Logger,
  options: PrunerOptions,
): Pruner {
  const batch = options.batch ?? 500;
  const tasks: [string, () => Promise<number>][] = [
    ['audit entries', () => parts.audit.prune(options.auditRetentionMs, batch)],
    ['sessions', () => parts.sessions.pruneExpired(batch)],
    ['sign-ups', () => parts.signups.deleteExpired(Date.now(), batch)],
    ['password reset links', () => parts.resets.deleteExpired(Date.now(), batch)],
  ];
  let stopped = false;
  let running: Promise<Record<string, number>> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const round = async () => {
    const deleted: Record<string, number> = {};
    for (const [name, task] of tasks) {
      deleted[name] = 0;
      for (;;) {
        if (stopped) return deleted;
        const count = await task();
        deleted[name] += count;
        if (count < batch) break;
        await yieldToEventLoop();
      }
    }
    if (Object.values(deleted).some((count) => count > 0)) log.info({ deleted }, 'pruned account data');
    return deleted;
  };
  const runOnce = () => {
    running ??= round().finally(() => (running = undefined));
    return running;
  };
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => log.error({ err: error }, 'pruning account data failed'))
        .finally(() => !stopped && schedule(options.intervalMs ?? 3_600_000));
    }, delay);
    timer.unref();
  };
  schedule(10_000);
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
