import type { Logger } from 'pino';
import type { ClaimRequest, ClaimedDelivery, DeliveryQueue } from './delivery-queue.js';

/** What the worker wants claimed now; undefined when its local queue is full enough. */
export type ClaimPlan = Omit<ClaimRequest, 'owner' | 'leaseMs'> | undefined;

/**
 * The claiming half of a worker: one claim at a time, run again at once while claims come back full
 * or a wake-up arrived meanwhile, else after `pollMs`; a failing database is retried gently.
 */
export class ClaimLoop {
  private running = false;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly pollMs: number,
    private readonly log: Logger,
    private readonly plan: () => ClaimPlan,
    /** Takes what was claimed; false when the worker is stopping (the claims are then handed back). */
    private readonly take: (claimed: ClaimedDelivery[]) => boolean,
  ) {}

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  /** Stops claiming; resolves once a claim under way has ended. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.claiming;
  }

  /** Claims again in `ms` (or sooner, if already planned sooner). */
  schedule(ms: number): void {
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
    const plan = this.plan();
    if (!plan) return;
    this.claimAgain = false;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.queue.claim({ owner: this.owner, leaseMs: this.leaseMs, ...plan });
    } catch (error) {
      // The database is away (restarting, network): keep polling, gently.
      this.log.error({ err: error }, 'claiming deliveries failed; trying again shortly');
      setImmediate(() => this.schedule(Math.max(this.pollMs, 1000)));
      return;
    }
    if (!this.running || !this.take(claimed)) {
      await this.queue.release(claimed).catch(() => undefined);
      return;
    }
    const more = this.claimAgain || claimed.length === plan.limit;
    // Once `claiming` is cleared, so this is not mistaken for a request made during the claim.
    setImmediate(() => this.schedule(more ? 0 : this.pollMs));
  }
}
