import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { AppShares } from './app-shares.js';
import type { AppSlots } from './app-slots.js';
import { retryDelay } from './backoff.js';
import { deliveryBody } from './callback-body.js';
import type { CallbackSender, SendOutcome } from './callback-sender.js';
import type { CompletionBatcher } from './completion-batcher.js';
import type { ClaimedDelivery, Completion, DeliveryQueue } from './delivery-queue.js';
import { signatureHeader } from './signature.js';

/** Room left between a send's end at the latest and its lease's (or slot's) end: clock rates, the write of the result. */
export const FENCE_MARGIN_MS = 1000;

export interface SendStats {
  /** Requests made. */
  sent: number;
  delivered: number;
  retrying: number;
  failed: number;
  /** Sends not made because the lease or the slot was lost, or would end before the send could. */
  fenced: number;
  /** Claims handed back unsent because other workers held every slot of their app. */
  yielded: number;
}

/**
 * Sends one claimed delivery and records what happened, under its lease. The fence: just before
 * the request is written, the claim's lease and the app's slot are read again on the database clock
 * (the slots renewed in the same step), and the request is written only while both will outlast it
 * cut off at its timeout — checked on this process's monotonic clock in the same synchronous step
 * as the socket write, so a worker that stalls anywhere before that step sends nothing.
 */
export class SendStep {
  constructor(
    private readonly queue: DeliveryQueue,
    private readonly sender: CallbackSender,
    private readonly slots: AppSlots,
    private readonly shares: AppShares,
    private readonly results: CompletionBatcher,
    private readonly settings: Config['delivery'],
    private readonly timeoutMs: number,
    private readonly log: Logger,
    readonly stats: SendStats,
  ) {}

  /**
   * True when the result went into the database, false when the lease was lost first (or nothing
   * was sent). `over` is called as soon as no request of this delivery is in flight any more (it
   * came back, failed, or was never written), before the result is written: the app's in-flight
   * limit counts requests at its receiver, not results waiting for a commit.
   */
  async run(delivery: ClaimedDelivery, signal: AbortSignal, over: () => void = () => {}): Promise<boolean> {
    const { id, lease } = delivery;
    const prepared = this.body(delivery);
    if ('error' in prepared) {
      over();
      // Nothing is sent: the row keeps the attempts it had before this claim.
      return this.results.record(id, lease, { status: 'failed', attempts: delivery.attempts - 1, statusCode: null, error: prepared.error });
    }
    const { url, body } = prepared;
    const headers = {
      'x-snsr-delivery': delivery.uuid,
      'x-snsr-signature': signatureHeader(delivery.secret, body, Math.floor(Date.now() / 1000)),
    };
    const [leaseEnd, slots] = await Promise.all([this.queue.leaseEnd(delivery), this.slots.fence(delivery.appId)]);
    // Cut off at its timeout, a request written by then ends a margin before the lease and the slot do.
    const writeBy = Math.min(leaseEnd, slots.validUntil) - this.timeoutMs - FENCE_MARGIN_MS;
    const started = performance.now();
    const outcome =
      slots.held < this.shares.sending(delivery.appId) || started > writeBy
        ? ({ kind: 'fenced' } as const)
        : await this.sender.send(url, body, headers, { signal, writeBy });
    over();
    if (outcome.kind === 'aborted' || outcome.kind === 'fenced') {
      if (outcome.kind === 'fenced') {
        this.stats.fenced++;
        this.log.warn({ delivery: id, app: delivery.appId, lease: leaseEnd > 0, slots: slots.held }, 'claim or sending slot lost, or too near its end, before the request went out; not sent');
      }
      // Handed back unsent, the attempt not counted; a no-op if the lease is already another's.
      await this.queue.release([delivery]);
      return false;
    }
    return this.record(delivery, outcome, Math.round(performance.now() - started));
  }

  /** Where the request goes and its body, or why the delivery cannot be sent at all. */
  private body(delivery: ClaimedDelivery): { url: string; body: string } | { error: string } {
    // The app's callbackurl was cleared after the message was queued: nowhere to send it.
    if (delivery.callbackUrl === null) return { error: 'the app has no callbackurl' };
    if (delivery.attempts > this.settings.maxAttempts) {
      // Earlier claims ended without a result (their workers died or stalled mid-send): each counted.
      return { error: `gave up after ${delivery.attempts - 1} attempts; the last ended without a result (its worker stopped)` };
    }
    try {
      return { url: delivery.callbackUrl, body: deliveryBody(delivery.subject, delivery.appId) };
    } catch (error) {
      return { error: `the stored ${delivery.subject.kind} cannot be encoded: ${(error as Error).message}` };
    }
  }

  private async record(delivery: ClaimedDelivery, outcome: Exclude<SendOutcome, { kind: 'aborted' | 'fenced' }>, latencyMs: number): Promise<boolean> {
    const { id, lease, attempts } = delivery;
    this.stats.sent++;
    let completion: Completion;
    // How long the request took (the webhook health's latency).
    if (outcome.kind === 'delivered') completion = { status: 'delivered', attempts, statusCode: outcome.statusCode, latencyMs };
    else if (attempts >= this.settings.maxAttempts) completion = { status: 'failed', attempts, statusCode: outcome.statusCode, error: outcome.error, latencyMs };
    else {
      const retryInMs = retryDelay(attempts, this.settings.backoffMs);
      completion = { status: 'pending', attempts, statusCode: outcome.statusCode, error: outcome.error, retryInMs, latencyMs };
    }
    this.stats[completion.status === 'pending' ? 'retrying' : completion.status]++;
    const recorded = await this.results.record(id, lease, completion);
    const fields = { delivery: id, app: delivery.appId, attempts, status: completion.status };
    if (!recorded) this.log.warn(fields, 'callback result came after its lease was lost; another worker owns it now');
    else if (completion.status === 'failed') this.log.warn({ ...fields, error: completion.error }, 'callback delivery failed for good');
    else if (completion.status === 'pending') this.log.debug({ ...fields, error: completion.error }, 'callback failed; will retry');
    return recorded;
  }
}
