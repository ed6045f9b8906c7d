import type { Logger } from 'pino';
import type { AuditService } from '../domain/audit.js';
import type { SessionService } from '../domain/sessions.js';
import type { SignupsRepository } from '../storage/signups-repository.js';
import type { PasswordResetsRepository } from '../storage/password-resets-repository.js';
import { backgroundJob } from './background-job.js';
import type { BackgroundJob } from './background-job.js';

export interface PrunerOptions {
  auditRetentionMs: number;
  /** Rows deleted per statement: small, so a big backlog never holds a lock (or SQLite) for long. */
  batch?: number;
  /** Pause between rounds once everything due is gone. */
  intervalMs?: number;
}

export type Pruner = BackgroundJob<Record<string, number>>;

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
  return backgroundJob(
    async ({ drain }) => {
      const deleted: Record<string, number> = {};
      for (const [name, task] of tasks) deleted[name] = await drain(task);
      if (Object.values(deleted).some((count) => count > 0)) log.info({ deleted }, 'pruned account data');
      return deleted;
    },
    { name: 'pruning account data', log, batch, intervalMs: options.intervalMs },
  ).start();
}
