import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Notifier } from '../storage/notifications.js';
import { AppShares } from './app-shares.js';
import type { AppSlots } from './app-slots.js';
import type { CallbackSender } from './callback-sender.js';
import { ClaimLoop } from './claim-loop.js';
import { CompletionBatcher } from './completion-batcher.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { SendQueue } from './send-queue.js';
import { SendStep } from './send-step.js';
import type { SendStats } from './send-step.js';
import { backgroundJob } from '../lifecycle/background-job.js';
import type { BackgroundJob } from '../lifecycle/background-job.js';

export interface WorkerOptions {
  /** Names this worker's leases and slots; unique per worker by default. */
  owner?: string;
  /** How long a claim is reserved; longer than a send can take, so only a dead worker's claims expire. */
  leaseMs?: number;
  /** Total time one callback request may take (the sender's limit): a send starts only if it ends within the lease. */
  timeoutMs?: number;
  /** Pause between claims while nothing is due. */
  pollMs?: number;
  /** How long `stop()` lets in-flight sends finish before cutting them off and releasing them. */
  shutdownGraceMs?: number;
  pruneIntervalMs?: number;
  /** How often the outbox's statistics are checked (PostgreSQL), and taken again if stale. */
  statisticsIntervalMs?: number;
}

const DAY_MS = 86_400_000;

export const workerOwner = () => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

/**
 * Claims due deliveries and sends them, at most `concurrency` in flight and `perAppConcurrency` per
 * app, so one slow receiver holds only its own share. Claims run ahead of sends (up to twice the
 * concurrency, in a local queue) so database round trips never stall sending. Each send is fenced
 * and recorded by the send step (send-step.ts). Several workers (in one process or many on
 * PostgreSQL) can share one outbox: leases and slots keep them from sending a delivery twice.
 */
export class DeliveryWorker {
  readonly owner: string;
  /** Counts since start: requests made, how they ended, and sends fenced off. */
  readonly stats: SendStats = { sent: 0, delivered: 0, retrying: 0, failed: 0, fenced: 0, yielded: 0 };
  private readonly shutdownGraceMs: number;
  private readonly pruneIntervalMs: number;
  /** Takes the outbox's statistics again where they went stale (PostgreSQL), one round at a time. */
  private readonly statistics: BackgroundJob<string[]>;
  private readonly shares: AppShares;
  private readonly sends: SendQueue;
  private readonly claims: ClaimLoop;
  private running = false;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning: Promise<number> | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly sender: CallbackSender,
    private readonly settings: Config['delivery'],
    private readonly log: Logger,
    /** Wakes the worker when deliveries are queued, in any process (the `deliveries` channel). */
    private readonly notifier: Notifier,
    /** Sending slots per app, shared by every worker: what holds `perAppConcurrency` across processes. */
    private readonly slots: AppSlots,
    options: WorkerOptions = {},
  ) {
    this.owner = options.owner ?? workerOwner();
    const leaseMs = options.leaseMs ?? settings.leaseMs;
    const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    const pollMs = options.pollMs ?? 100;
    this.shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
    this.pruneIntervalMs = options.pruneIntervalMs ?? 10 * 60_000;
    const refresh = async () => {
      const tables = await queue.refreshStatistics();
      if (tables.length > 0) this.log.info({ tables }, 'statistics of the outbox were stale; analyzed');
      return tables;
    };
    this.statistics = backgroundJob(refresh, {
      name: 'analyzing the outbox',
      log,
      intervalMs: options.statisticsIntervalMs ?? 15_000,
      firstDelayMs: 0,
    });
    this.shares = new AppShares(
      slots,
      pollMs,
      () => this.sends.pump(),
      (appId) => (this.stats.yielded += this.sends.yieldApp(appId)),
    );
    const step = new SendStep(queue, sender, slots, this.shares, new CompletionBatcher(queue), settings, timeoutMs, log, this.stats);
    this.sends = new SendQueue(queue, step, slots, this.shares, settings, { leaseMs, timeoutMs }, log, () => this.claims.schedule(0));
    this.claims = new ClaimLoop(queue, this.owner, leaseMs, pollMs, log, () => this.sends.plan(), (claimed) => this.running && this.sends.take(claimed));
  }

  get active(): boolean {
    return this.running;
  }

  start(): this {
    if (this.running || this.stopping) return this;
    this.running = true;
    this.sends.start();
    this.unsubscribe = this.notifier.subscribe('deliveries', () => this.claims.schedule(0));
    this.pruneTimer = setInterval(() => void this.prune(), this.pruneIntervalMs).unref();
    void this.prune();
    this.statistics.start();
    void this.queue.vacuumOff().then(
      (off) => off && this.log.warn('PostgreSQL runs with autovacuum off: delivered callbacks leave dead rows in the outbox that only a VACUUM reclaims; turn it on'),
      () => undefined,
    );
    this.log.info({ owner: this.owner, concurrency: this.settings.concurrency, perApp: this.settings.perAppConcurrency }, 'delivery worker started');
    this.claims.start();
    return this;
  }

  /**
   * Stops claiming, hands back claims not yet sent, gives in-flight sends `shutdownGraceMs` to
   * finish, then cuts the rest off and hands them back too, so the next worker sends them at once.
   */
  stop(graceMs = this.shutdownGraceMs): Promise<void> {
    this.stopping ??= this.shutdown(graceMs);
    return this.stopping;
  }

  /** Deletes delivered rows older than the retention period; failed rows are kept. */
  prune(now = Date.now()): Promise<number> {
    this.pruning ??= this.queue
      .prune(now - this.settings.retentionDays * DAY_MS)
      .then((deleted) => {
        if (deleted > 0) this.log.info({ deleted }, 'pruned delivered callbacks past retention');
        return deleted;
      })
      .catch((error: unknown) => {
        this.log.error({ err: error }, 'pruning deliveries failed');
        return 0;
      })
      .finally(() => (this.pruning = undefined));
    return this.pruning;
  }

  private async shutdown(graceMs: number): Promise<void> {
    const wasRunning = this.running;
    this.running = false;
    this.shares.stop();
    clearInterval(this.pruneTimer);
    this.unsubscribe?.();
    await this.claims.stop();
    await this.sends.stop(graceMs);
    await this.pruning;
    await this.statistics.stop();
    this.sender.close();
    await this.slots.close();
    if (wasRunning) this.log.info({ owner: this.owner }, 'delivery worker stopped');
  }
}
