import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CallbackSender } from './callback-sender.js';
import { callbackBody } from './callback-body.js';
import type { ClaimedDelivery, Completion, DeliveryQueue } from './delivery-queue.js';
import { CompletionBatcher } from './completion-batcher.js';
import type { Notifier } from '../storage/notifications.js';
import type { AppSlots } from './app-slots.js';
import { retryDelay } from './backoff.js';
import { signatureHeader } from './signature.js';

export interface WorkerOptions {
  /** Names this worker's leases; unique per worker by default. */
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
}

const DAY_MS = 86_400_000;
/** Claims held ahead of sending, as a multiple of the concurrency: sends never wait on a claim. */
const PREFETCH = 2;
/** Room left between a send's end at the latest and its lease's end: clock rates, the write of the result. */
const FENCE_MARGIN_MS = 1000;

/**
 * Claims due deliveries and sends them, at most `concurrency` in flight and `perAppConcurrency` per
 * app, so one slow receiver holds only its own share. Claims run ahead of sends (up to twice the
 * concurrency, in a local queue) so database round trips never stall sending. Sends happen outside
 * any transaction; results are written back in batches under the claims' lease. Several workers
 * (in one process or many on PostgreSQL) can share one outbox: leases keep them from sending a
 * delivery twice.
 */
export class DeliveryWorker {
  readonly owner: string;
  /** Counts since start: requests made, and how they ended. */
  readonly stats = { sent: 0, delivered: 0, retrying: 0, failed: 0 };
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly shutdownGraceMs: number;
  private readonly pruneIntervalMs: number;
  private readonly results: CompletionBatcher;
  /** Claimed, not sent yet, oldest first. */
  private ready: ClaimedDelivery[] = [];
  private readonly inFlight = new Map<number, { done: Promise<void>; abort: AbortController }>();
  /** Per app: [in flight, held (ready + in flight)]. */
  private readonly perApp = new Map<number, { sending: number; held: number }>();
  private readonly asking = new Set<number>();
  private slotRetry: NodeJS.Timeout | undefined;
  private running = false;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
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
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? settings.leaseMs;
    this.timeoutMs = options.timeoutMs ?? settings.timeoutMs;
    this.pollMs = options.pollMs ?? 100;
    this.shutdownGraceMs = options.shutdownGraceMs ?? 10_000;
    this.pruneIntervalMs = options.pruneIntervalMs ?? 10 * 60_000;
    this.results = new CompletionBatcher(queue);
  }

  get active(): boolean {
    return this.running;
  }

  start(): this {
    if (this.running || this.stopping) return this;
    this.running = true;
    this.unsubscribe = this.notifier.subscribe('deliveries', () => this.schedule(0));
    this.pruneTimer = setInterval(() => void this.prune(), this.pruneIntervalMs).unref();
    void this.prune();
    this.log.info({ owner: this.owner, concurrency: this.settings.concurrency, perApp: this.settings.perAppConcurrency }, 'delivery worker started');
    this.schedule(0);
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
    clearTimeout(this.timer);
    clearTimeout(this.slotRetry);
    clearInterval(this.pruneTimer);
    this.unsubscribe?.();
    await this.claiming;
    await this.releaseReady();
    const sends = () => Promise.allSettled([...this.inFlight.values()].map((send) => send.done));
    let timer: NodeJS.Timeout | undefined;
    const expired = await Promise.race([
      sends().then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (expired) {
      this.log.warn({ cut: this.inFlight.size }, 'in-flight callbacks cut off at shutdown; they are queued again');
      for (const send of this.inFlight.values()) send.abort.abort();
      await sends();
    }
    await this.pruning;
    this.sender.close();
    await this.slots.close();
    if (wasRunning) this.log.info({ owner: this.owner }, 'delivery worker stopped');
  }

  private async releaseReady(): Promise<void> {
    const unsent = this.ready.splice(0);
    for (const delivery of unsent) this.count(delivery.appId, 0, -1);
    await this.queue.release(unsent).catch((error: unknown) => {
      this.log.error({ err: error }, 'releasing unsent claims failed; their leases will expire instead');
    });
  }

  private count(appId: number, sending: number, held: number): void {
    const entry = this.perApp.get(appId) ?? { sending: 0, held: 0 };
    entry.sending += sending;
    entry.held += held;
    if (entry.held > 0) return void this.perApp.set(appId, entry);
    this.perApp.delete(appId);
    // Nothing of this app left here: its slots go back for other workers.
    void this.slots.release(appId);
  }

  /** Asks for more of an app's slots (one request per app at a time), pumping again when it has them. */
  private askSlots(appId: number, want: number): void {
    if (this.asking.has(appId)) return;
    const before = this.slots.held(appId);
    this.asking.add(appId);
    void this.slots.acquire(appId, want).then((held) => {
      this.asking.delete(appId);
      if (held > before) this.pump();
      else if (!this.slotRetry) {
        // Other workers hold them all: look again shortly (their sends end within the timeout).
        this.slotRetry = setTimeout(() => {
          this.slotRetry = undefined;
          this.pump();
        }, this.pollMs);
      }
    });
  }

  /** Claims again in `ms` (or sooner, if already planned sooner). */
  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    const at = Date.now() + ms;
    if (this.timer && at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.claiming = this.claim().finally(() => (this.claiming = undefined));
    }, ms);
  }

  private async claim(): Promise<void> {
    const room = PREFETCH * this.settings.concurrency - this.ready.length - this.inFlight.size;
    // Refill when a good part of the window is free, so claims come in batches.
    if (room < Math.max(1, this.settings.concurrency / 2) && this.ready.length > 0) return;
    this.claimAgain = false;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.queue.claim({
        owner: this.owner,
        leaseMs: this.leaseMs,
        limit: room,
        // Leases per app across every worker: with shared slots, room to claim ahead of sending
        // (never a whole backlog); without, the in-flight limit itself.
        perAppLimit: (this.slots.shared ? PREFETCH : 1) * this.settings.perAppConcurrency,
        allowance: (appId) => PREFETCH * this.settings.perAppConcurrency - (this.perApp.get(appId)?.held ?? 0),
      });
    } catch (error) {
      // The database is away (restarting, network): keep polling, gently.
      this.log.error({ err: error }, 'claiming deliveries failed; trying again shortly');
      setImmediate(() => this.schedule(Math.max(this.pollMs, 1000)));
      return;
    }
    if (!this.running) {
      await this.queue.release(claimed).catch(() => undefined);
      return;
    }
    for (const delivery of claimed) this.count(delivery.appId, 0, 1);
    this.ready.push(...claimed);
    this.pump();
    const more = this.claimAgain || claimed.length === room;
    // Once `claiming` is cleared, so this is not mistaken for a request made during the claim.
    setImmediate(() => this.schedule(more ? 0 : this.pollMs));
  }

  /** Starts sends from the local queue, oldest first, within the overall and per-app limits. */
  private pump(): void {
    if (!this.running || this.ready.length === 0) return;
    const { concurrency, perAppConcurrency } = this.settings;
    const waiting: ClaimedDelivery[] = [];
    const late: ClaimedDelivery[] = [];
    const short = new Map<number, number>();
    for (const delivery of this.ready) {
      const sending = this.perApp.get(delivery.appId)?.sending ?? 0;
      const slots = this.slots.held(delivery.appId);
      if (!this.inTime(delivery)) late.push(delivery);
      else if (this.inFlight.size < concurrency && sending < perAppConcurrency && sending < slots) this.dispatch(delivery);
      else {
        waiting.push(delivery);
        if (sending >= slots && sending < perAppConcurrency) short.set(delivery.appId, (short.get(delivery.appId) ?? sending) + 1);
      }
    }
    this.ready = waiting;
    if (late.length > 0) this.giveBack(late);
    for (const [appId, want] of short) this.askSlots(appId, want);
    if (this.ready.length < this.settings.concurrency) this.schedule(0);
  }

  /**
   * The fence: a send may start only if, cut off at its timeout, it still ends before the lease
   * does — measured on this process's monotonic clock from before the claim was asked for, so a
   * process that stalled (paused, swapped out, starved) past its lease never sends what another
   * worker may have claimed since. Checked again just before the request goes out.
   */
  private inTime(delivery: ClaimedDelivery): boolean {
    return performance.now() - delivery.claimedAt + this.timeoutMs + FENCE_MARGIN_MS <= this.leaseMs;
  }

  /** Claims that waited too long for their turn: handed back, unsent and not counted. */
  private giveBack(late: ClaimedDelivery[]): void {
    for (const delivery of late) this.count(delivery.appId, 0, -1);
    this.log.warn({ deliveries: late.length }, 'claims held past the time they could still be sent in; handed back');
    this.queue.release(late).catch((error: unknown) => this.log.error({ err: error }, 'handing back late claims failed; their leases will expire instead'));
    this.schedule(0);
  }

  private dispatch(delivery: ClaimedDelivery): void {
    const abort = new AbortController();
    this.count(delivery.appId, 1, 0);
    const done = this.deliver(delivery, abort.signal)
      .catch((error: unknown) => this.log.error({ err: error, delivery: delivery.id }, 'recording a callback failed; its lease will expire and it will be sent again'))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.count(delivery.appId, -1, -1);
        this.pump();
      });
    this.inFlight.set(delivery.id, { done, abort });
  }

  private async deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const { id, lease } = delivery;
    // Nothing is sent in these cases: the row keeps the attempts it had before this claim.
    const unsent = delivery.attempts - 1;
    if (delivery.callbackUrl === null) {
      // The app's callbackurl was cleared after the message was queued: nowhere to send it.
      await this.results.record(id, lease, { status: 'failed', attempts: unsent, statusCode: null, error: 'the app has no callbackurl' });
      return;
    }
    if (delivery.attempts > this.settings.maxAttempts) {
      // Earlier claims ended without a result (their workers died mid-send): each counted.
      const error = `gave up after ${unsent} attempts; the last ended without a result (its worker stopped)`;
      await this.results.record(id, lease, { status: 'failed', attempts: unsent, statusCode: null, error });
      return;
    }
    let body: string;
    try {
      body = callbackBody(delivery.message, delivery.deviceSerial, delivery.appId);
    } catch (error) {
      const reason = `the stored message cannot be encoded: ${(error as Error).message}`;
      await this.results.record(id, lease, { status: 'failed', attempts: unsent, statusCode: null, error: reason });
      return;
    }
    const headers = {
      'x-snsr-delivery': delivery.uuid,
      'x-snsr-signature': signatureHeader(delivery.secret, body, Math.floor(Date.now() / 1000)),
    };
    if (!this.inTime(delivery)) {
      await this.queue.release([delivery]);
      return;
    }
    const started = performance.now();
    const outcome = await this.sender.send(delivery.callbackUrl, body, headers, signal);
    const latencyMs = Math.round(performance.now() - started);
    if (outcome.kind === 'aborted') {
      await this.queue.release([delivery]);
      return;
    }
    const { attempts } = delivery;
    this.stats.sent++;
    let completion: Completion;
    if (outcome.kind === 'delivered') completion = { status: 'delivered', attempts, statusCode: outcome.statusCode, latencyMs };
    else if (attempts >= this.settings.maxAttempts) completion = { status: 'failed', attempts, statusCode: outcome.statusCode, error: outcome.error, latencyMs };
    else {
      const retryInMs = retryDelay(attempts, this.settings.backoffMs);
      completion = { status: 'pending', attempts, statusCode: outcome.statusCode, error: outcome.error, retryInMs, latencyMs };
    }
    this.stats[completion.status === 'pending' ? 'retrying' : completion.status]++;
    const recorded = await this.results.record(id, lease, completion);
    // The lease is gone from the database: this app may have room for another claim now.
    this.schedule(0);
    const fields = { delivery: id, app: delivery.appId, attempts, status: completion.status };
    if (!recorded) this.log.warn(fields, 'callback result came after its lease was lost; another worker owns it now');
    else if (completion.status === 'failed') this.log.warn({ ...fields, error: completion.error }, 'callback delivery failed for good');
    else if (completion.status === 'pending') this.log.debug({ ...fields, error: completion.error }, 'callback failed; will retry');
  }
}
