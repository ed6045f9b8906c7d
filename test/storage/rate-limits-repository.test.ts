import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { RateLimitsRepository } from '../../src/storage/rate-limits-repository.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

describe.each(dialects)('rate-limit counters in the database (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  afterEach(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('counts hits in a fixed window, starts again once it ends, and forgets ended windows', async () => {
    database = await freshDatabase(dialect);
    storage = await openStorage(database.url, { migrate: true });
    const counters = new RateLimitsRepository(storage.db);
    const t0 = 1_000_000;
    expect(await counters.read('k', t0)).toEqual({ count: 0, ttlMs: 0 });
    expect(await counters.hit('k', 60_000, t0)).toEqual({ count: 1, ttlMs: 60_000 });
    expect(await counters.hit('k', 60_000, t0 + 10_000)).toEqual({ count: 2, ttlMs: 50_000 });
    // Concurrent hits (several processes) all count.
    await Promise.all(Array.from({ length: 8 }, () => counters.hit('k', 60_000, t0 + 20_000)));
    expect(await counters.read('k', t0 + 20_000)).toEqual({ count: 10, ttlMs: 40_000 });
    // The window is fixed: hits do not extend it, so a blocked client waits at most the window.
    expect(await counters.read('k', t0 + 60_000)).toEqual({ count: 0, ttlMs: 0 });
    expect(await counters.hit('k', 60_000, t0 + 60_000)).toEqual({ count: 1, ttlMs: 60_000 });
    await counters.hit('other', 1000, t0);
    expect(await counters.prune(t0 + 5000)).toBe(1);
    expect(await counters.read('k', t0 + 61_000)).toEqual({ count: 1, ttlMs: 59_000 });
  });

  it('is configured by the limits settings', () => {
    expect(loadConfig({}).limits).toMatchObject({ failuresPerAccount: 10, failuresPerSerial: 20, failuresPerAddress: 100, failureWindowMinutes: 15, trustProxy: false });
    expect(loadConfig({ SNSR_TRUST_PROXY: '2' }).limits.trustProxy).toBe(2);
    expect(loadConfig({ SNSR_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).limits.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ SNSR_TRUST_PROXY: 'proxy.example' })).toThrow(/SNSR_TRUST_PROXY must be true, false, a hop count or a list of proxy addresses\/CIDRs, got "proxy.example"/);
    expect(() => loadConfig({ SNSR_REDIS_URL: 'http://x' })).toThrow(/SNSR_REDIS_URL must be a redis or rediss URL/);
  });
});
