import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisSlots } from '../../src/delivery/redis-slots.js';

const REDIS_URL = process.env.SNSR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('app sending slots in Redis', () => {
  const clients: Redis[] = [];
  const slotSets: RedisSlots[] = [];
  afterEach(async () => {
    for (const slots of slotSets.splice(0)) await slots.close();
    for (const client of clients.splice(0)) client.disconnect();
  });

  async function worker(limit: number, ttlMs: number): Promise<{ slots: RedisSlots; client: Redis }> {
    const client = new Redis(REDIS_URL);
    await client.ping();
    clients.push(client);
    const slots = new RedisSlots(client, limit, ttlMs, () => {});
    slotSets.push(slots);
    return { slots, client };
  }

  it('shares an app’s limit between workers; a worker that goes away loses its slots when they expire', async () => {
    // An app id of its own per run, so runs never see each other's slots.
    const app = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const a = await worker(2, 1500);
    const b = await worker(2, 1500);
    expect(await a.slots.acquire(app, 5)).toBe(2);
    expect(await b.slots.acquire(app, 2)).toBe(0);
    expect(await b.slots.acquire(app + 1, 1)).toBe(1);
    await a.slots.release(app);
    expect(await b.slots.acquire(app, 2)).toBe(2);
    expect(await a.slots.acquire(app, 2)).toBe(0);
    // Held past their first expiry: renewed while the worker is alive.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(b.slots.held(app)).toBe(2);
    expect(await a.slots.acquire(app, 1)).toBe(0);
    // The worker dies: nobody renews, and its slots come free once they expire.
    b.client.disconnect();
    const started = Date.now();
    while (((await a.slots.acquire(app, 2)) ?? 0) < 2) {
      expect(Date.now() - started).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Date.now() - started).toBeGreaterThan(300);
  });

  it('a renewal sent before an acquisition answered keeps what the acquisition added', async () => {
    const app = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const { slots } = await worker(4, 30_000);
    expect(await slots.acquire(app, 2)).toBe(2);
    // The acquisition's script goes out at once; the fence's renewal goes out at the end of this
    // turn of the event loop, naming the two members held then, and answers after the acquisition.
    const acquired = slots.acquire(app, 4);
    const fenced = slots.fence(app);
    expect(await acquired).toBe(4);
    await fenced;
    expect(slots.held(app)).toBe(4);
    expect((await slots.fence(app)).held).toBe(4);
  });

  it('says nothing of the slots while Redis is unreachable, rather than that others hold them all', async () => {
    const app = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const a = await worker(2, 30_000);
    expect(await a.slots.acquire(app, 1)).toBe(1);
    a.client.disconnect();
    // As snsr's client is configured: a command fails at once while the connection is down.
    const down = new Redis(REDIS_URL, { enableOfflineQueue: false, lazyConnect: true });
    down.on('error', () => {});
    clients.push(down);
    const errors: unknown[] = [];
    const b = new RedisSlots(down, 2, 30_000, (error) => errors.push(error));
    slotSets.push(b);
    expect(await b.acquire(app, 2)).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(b.held(app)).toBe(0);
  });
});
