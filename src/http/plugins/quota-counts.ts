import type { RateLimitsRepository, WindowCount } from '../../storage/rate-limits-repository.js';

/** How often a process adds the quota hits it counted to the database's counters. */
export const QUOTA_FLUSH_MS = 250;
/** Keys per statement when adding them up (three parameters each). */
const FLUSH_CHUNK = 1000;

interface Counted {
  /** The database's count at this process's last flush (every process's hits until then). */
  shared: number;
  /** Hits counted here, being added to the database now. */
  sending: number;
  /** Hits counted here since. */
  pending: number;
  resetAt: number;
  windowMs: number;
}

/**
 * Request quotas counted in the database without a write per request: each process counts hits in
 * memory and adds them to `rate_limits` in one statement every `everyMs`, learning every process's
 * total for those keys in return. A key's count is the total at the last flush plus what was
 * counted here since, so within one process the quota is exact, and across N processes a key may
 * be let through at most the hits the others counted in one flush interval beyond it. The window
 * is the database's once known (a fixed window: hits do not extend it).
 */
export class QuotaCounts {
  private readonly counts = new Map<string, Counted>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly repository: RateLimitsRepository,
    private readonly onError: (error: unknown) => void,
    private readonly everyMs = QUOTA_FLUSH_MS,
  ) {}

  hit(key: string, windowMs: number, now = Date.now()): WindowCount {
    let entry = this.counts.get(key);
    if (entry === undefined) {
      entry = { shared: 0, sending: 0, pending: 0, resetAt: now + windowMs, windowMs };
      this.counts.set(key, entry);
    } else if (entry.resetAt <= now) {
      // The window ended as far as this process knows; the next flush tells what the database says.
      entry.shared = 0;
      entry.resetAt = now + windowMs;
    }
    entry.pending++;
    this.schedule();
    return { count: entry.shared + entry.sending + entry.pending, ttlMs: entry.resetAt - now };
  }

  read(key: string, now = Date.now()): WindowCount {
    const entry = this.counts.get(key);
    return entry === undefined || entry.resetAt <= now ? { count: 0, ttlMs: 0 } : { count: entry.shared + entry.sending + entry.pending, ttlMs: entry.resetAt - now };
  }

  /** Adds the hits counted since the last flush to the database; forgets keys whose window ended. */
  flush(now = Date.now()): Promise<void> {
    this.flushing ??= this.send(now).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Stops the timer and sends what is still counted. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      void this.flush().then(() => {
        this.timer = undefined;
        if ([...this.counts.values()].some((entry) => entry.pending > 0)) this.schedule();
      });
    }, this.everyMs);
    this.timer.unref();
  }

  private async send(now: number): Promise<void> {
    const batch: { key: string; count: number; windowMs: number }[] = [];
    for (const [key, entry] of this.counts) {
      if (entry.pending > 0) {
        batch.push({ key, count: entry.pending, windowMs: entry.windowMs });
        entry.sending += entry.pending;
        entry.pending = 0;
      } else if (entry.sending === 0 && entry.resetAt <= now) {
        this.counts.delete(key);
      }
    }
    for (let start = 0; start < batch.length; start += FLUSH_CHUNK) {
      const chunk = batch.slice(start, start + FLUSH_CHUNK);
      let totals: Map<string, WindowCount> | undefined;
      try {
        totals = await this.repository.hitMany(chunk, now);
      } catch (error) {
        this.onError(error);
      }
      for (const hit of chunk) {
        const entry = this.counts.get(hit.key)!;
        entry.sending -= hit.count;
        const total = totals?.get(hit.key);
        if (total === undefined) {
          // Not added (the database failed): counted again with the next flush.
          entry.pending += hit.count;
        } else {
          entry.shared = total.count;
          entry.resetAt = now + total.ttlMs;
        }
      }
    }
  }
}
