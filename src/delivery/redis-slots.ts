import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { slotMargin as margin } from './app-slots.js';
import type { AppSlots, SlotFence } from './app-slots.js';
import { TickBatch } from './tick-batch.js';

// Drops expired holders, then adds as many of the given members as the limit leaves room for, each
// expiring `ttl` ms from now on Redis's clock (one clock for every worker). Returns how many.
const ACQUIRE = `
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local room = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local added = 0
for i = 3, #ARGV do
  if added >= room then break end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
  added = added + 1
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return added`;

// Extends the members still held; returns which are (an expired one may have been dropped).
const RENEW = `
local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local kept = {}
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) > now then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i])
    table.insert(kept, ARGV[i])
  end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return kept`;

interface Held {
  members: string[];
  /** `performance.now()` until which they are surely still ours. */
  validUntil: number;
}

/**
 * Sending slots in Redis (`SNSR_REDIS_URL`): per app a sorted set of holders, each expiring `ttlMs`
 * after it was last renewed, renewed every third of that while held. A worker that dies or stalls
 * loses its slots when they expire, and counts them as held only until then on its own monotonic
 * clock, so it never sends on a slot another worker may have taken since.
 */
export class RedisSlots implements AppSlots {
  readonly shared = true;
  private readonly held_ = new Map<number, Held>();
  private readonly owner = randomBytes(6).toString('hex');
  private sequence = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly fences = new TickBatch<number, SlotFence>(async (apps) => {
    await this.renew(apps);
    return new Map(apps.map((appId) => [appId, { held: this.held(appId), validUntil: this.held_.get(appId)?.validUntil ?? 0 }]));
  }, { held: 0, validUntil: 0 });

  constructor(
    private readonly redis: Redis,
    private readonly limit: number,
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(ttlMs / 3))).unref();
  }

  held(appId: number): number {
    const mine = this.held_.get(appId);
    return mine && performance.now() < mine.validUntil ? mine.members.length : 0;
  }

  async acquire(appId: number, want: number): Promise<number | undefined> {
    const mine = this.held_.get(appId) ?? { members: [], validUntil: 0 };
    const missing = Math.min(want, this.limit) - this.held(appId);
    if (missing <= 0) return this.held(appId);
    const candidates = Array.from({ length: missing }, () => `${this.owner}:${this.sequence++}`);
    const asked = performance.now();
    try {
      const added = Number(await this.redis.eval(ACQUIRE, 1, key(appId), this.limit, this.ttlMs, ...candidates));
      if (added > 0) {
        // Those already held expire on their own schedule: the set is valid until the earliest.
        const validUntil = asked + this.ttlMs - margin(this.ttlMs);
        mine.validUntil = mine.members.length > 0 ? Math.min(mine.validUntil, validUntil) : validUntil;
        mine.members.push(...candidates.slice(0, added));
        this.held_.set(appId, mine);
      }
    } catch (error) {
      this.onError(error);
      return undefined;
    }
    return this.held(appId);
  }

  fence(appId: number): Promise<SlotFence> {
    return this.fences.get(appId);
  }

  async release(appId: number): Promise<void> {
    const mine = this.held_.get(appId);
    this.held_.delete(appId);
    if (!mine || mine.members.length === 0) return;
    await this.redis.zrem(key(appId), ...mine.members).catch(this.onError);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.held_.keys()].map((appId) => this.release(appId)));
  }

  /** Renews every app's slots, or these apps' (the fence); after an error the last renewal's end still counts. */
  private async renew(apps = [...this.held_.keys()]): Promise<void> {
    for (const appId of apps) {
      const mine = this.held_.get(appId);
      if (!mine) continue;
      const asked = performance.now();
      const renewing = new Set(mine.members);
      try {
        const kept = new Set((await this.redis.eval(RENEW, 1, key(appId), this.ttlMs, ...renewing)) as string[]);
        if (this.held_.get(appId) !== mine) continue;
        // Members acquired meanwhile were not asked about: they stay, good until their acquisition said.
        const added = mine.members.some((member) => !renewing.has(member));
        mine.members = mine.members.filter((member) => !renewing.has(member) || kept.has(member));
        const renewedUntil = asked + this.ttlMs - margin(this.ttlMs);
        mine.validUntil = added ? Math.min(mine.validUntil, renewedUntil) : renewedUntil;
        if (mine.members.length === 0) this.held_.delete(appId);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

const key = (appId: number) => `snsr:delivery-slots:${appId}`;
