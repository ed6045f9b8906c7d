import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { AppShares } from './app-shares.js';
import type { AppSlots } from './app-slots.js';
import type { ClaimPlan } from './claim-loop.js';
import type { ClaimedDelivery, DeliveryQueue } from './delivery-queue.js';
import { FENCE_MARGIN_MS } from './send-step.js';
import type { SendStep } from './send-step.js';

/** Claims held ahead of sending, as a multiple of the concurrency: sends never wait on a claim. */
const PREFETCH = 2;
/**
 * The same for one app, in rounds of its own limit, where sending slots hold that limit (leases do
 * otherwise): as many rounds as a lease outlasts at the callback timeout, at most four, and never
 * more than half the worker's window, so that one app's backlog cannot crowd the others out of it.
 * A backlog of one app goes out 4 at a time; with only twice that leased, each claim brought the one
 * or two rows just sent and sends waited on claims.
 */
const MAX_APP_ROUNDS = 4;

/**
 * The sending half of a worker: claimed deliveries wait here, oldest first, and go out at most
 * `concurrency` at a time and `perAppConcurrency` (and never more than the slots held) per app.
 */
export class SendQueue {
  /** Claimed, not sent yet, oldest first. */
  private ready: ClaimedDelivery[] = [];
  /** Every delivery being sent or having its result written, until both are done: what `concurrency` limits. */
  private readonly inFlight = new Map<number, { done: Promise<void>; abort: AbortController }>();
  private running = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly step: SendStep,
    private readonly slots: AppSlots,
    private readonly shares: AppShares,
    private readonly settings: Config['delivery'],
    private readonly times: { leaseMs: number; timeoutMs: number },
    private readonly log: Logger,
    /** Asks for a claim soon: there is room. */
    private readonly wantMore: () => void,
  ) {}

  start(): void {
    this.running = true;
  }

  /** Leases one app may hold in this worker (defaults: 16, with shared slots). */
  private get appLeases(): number {
    const { concurrency, perAppConcurrency } = this.settings;
    const lasting = Math.floor((this.times.leaseMs - FENCE_MARGIN_MS) / this.times.timeoutMs);
    const rounds = this.slots.shared ? Math.max(1, Math.min(MAX_APP_ROUNDS, lasting)) : PREFETCH;
    return Math.min(rounds * perAppConcurrency, Math.max(perAppConcurrency, (PREFETCH * concurrency) / 2));
  }

  /** What to claim next, if the window has room enough. */
  plan(): ClaimPlan {
    const room = PREFETCH * this.settings.concurrency - this.ready.length - this.inFlight.size;
    // Refill when a good part of the window is free, so claims come in batches.
    if (room < Math.max(1, this.settings.concurrency / 2) && this.ready.length > 0) return undefined;
    return {
      limit: room,
      // Leases per app across every worker: with shared slots, room to claim ahead of sending
      // (never a whole backlog); without, the in-flight limit itself.
      perAppLimit: this.slots.shared ? this.appLeases : this.settings.perAppConcurrency,
      allowance: (appId) => (this.shares.isShutOut(appId) ? 0 : this.appLeases - this.shares.held(appId)),
    };
  }

  /** Takes claims in; false once stopping (the caller hands them back). */
  take(claimed: ClaimedDelivery[]): boolean {
    if (!this.running) return false;
    for (const delivery of claimed) this.shares.count(delivery.appId, 0, 1);
    this.ready.push(...claimed);
    this.pump();
    return true;
  }

  /** Starts sends from the local queue, oldest first, within the overall and per-app limits. */
  pump(): void {
    if (!this.running || this.ready.length === 0) return;
    const { concurrency, perAppConcurrency } = this.settings;
    const waiting: ClaimedDelivery[] = [];
    const late: ClaimedDelivery[] = [];
    const short = new Map<number, number>();
    let asked = 0;
    for (const delivery of this.ready) {
      const sending = this.shares.sending(delivery.appId);
      const slots = this.slots.held(delivery.appId);
      if (!this.inTime(delivery)) late.push(delivery);
      else if (this.inFlight.size < concurrency && sending < perAppConcurrency && sending < slots) this.dispatch(delivery);
      else {
        waiting.push(delivery);
        // Slots are asked for only as far as this worker could send now: held beyond that, they
        // would shut other workers out of the app while this one's sends wait on each other.
        if (sending >= slots && sending < perAppConcurrency && this.inFlight.size + asked < concurrency) {
          short.set(delivery.appId, (short.get(delivery.appId) ?? sending) + 1);
          asked++;
        }
      }
    }
    this.ready = waiting;
    if (late.length > 0) {
      this.log.warn({ deliveries: late.length }, 'claims held past the time they could still be sent in; handed back');
      void this.handBack(late, 'handing back late claims failed; their leases will expire instead').then(this.wantMore);
    }
    for (const [appId, want] of short) this.shares.ask(appId, want);
    if (this.ready.length < concurrency) this.wantMore();
  }

  /** Hands back, uncounted, the claims of an app whose slots other workers hold, so they can send them; how many. */
  yieldApp(appId: number): number {
    const theirs = this.ready.filter((delivery) => delivery.appId === appId);
    if (theirs.length === 0) return 0;
    this.ready = this.ready.filter((delivery) => delivery.appId !== appId);
    void this.handBack(theirs, 'handing back claims of an app sent by other workers failed; their leases will expire instead').then(this.wantMore);
    return theirs.length;
  }

  /**
   * Hands back what waits, gives in-flight sends `graceMs` to finish, then cuts the rest off (the
   * send step hands those back too), so the next worker sends them at once.
   */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    await this.handBack(this.ready.splice(0), 'releasing unsent claims failed; their leases will expire instead');
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
  }

  /** Hands claims back unsent, the attempt not counted. */
  private async handBack(unsent: ClaimedDelivery[], failure: string): Promise<void> {
    for (const delivery of unsent) this.shares.count(delivery.appId, 0, -1);
    await this.queue.release(unsent).catch((error: unknown) => this.log.error({ err: error }, failure));
  }

  /**
   * A first, local fence that saves a database round trip: a claim whose lease (timed on this
   * process's monotonic clock from before the claim was asked for) could no longer outlast its send
   * is handed back. The send step fences again, on the database clock, as the request goes out.
   */
  private inTime(delivery: ClaimedDelivery): boolean {
    return performance.now() - delivery.claimedAt + this.times.timeoutMs + FENCE_MARGIN_MS <= this.times.leaseMs;
  }

  /**
   * Sends one delivery. Its request counts against the app's limit until it is over, so the app's
   * next may go out while this one's result is written (a commit shared with other results); the
   * worker's `concurrency` counts it until its result is written, so that results keep being
   * written, and the next sends fenced, many at a time.
   */
  private dispatch(delivery: ClaimedDelivery): void {
    const abort = new AbortController();
    this.shares.count(delivery.appId, 1, 0);
    let requesting = true;
    const over = () => {
      if (!requesting) return;
      requesting = false;
      this.shares.count(delivery.appId, -1, 0);
      // Not from within the step's synchronous start, which runs inside `pump`'s own loop.
      queueMicrotask(() => this.pump());
    };
    const done = this.step
      .run(delivery, abort.signal, over)
      // The lease is gone from the database: this app may have room for another claim now.
      .then(() => this.wantMore())
      .catch((error: unknown) => this.log.error({ err: error, delivery: delivery.id }, 'recording a callback failed; its lease will expire and it will be sent again'))
      .finally(() => {
        over();
        this.inFlight.delete(delivery.id);
        this.shares.count(delivery.appId, 0, -1);
        this.pump();
      });
    this.inFlight.set(delivery.id, { done, abort });
  }
}
