import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { RateLimitsRepository } from '../../src/storage/rate-limits-repository.js';
import { QuotaCounts } from '../../src/http/plugins/quota-counts.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

const WINDOW = 60_000;
const NEVER = 3_600_000;

describe.each(dialects)('request quotas counted in batches (%s)', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  afterEach(async () => {
    await storage?.close();
    await database?.drop();
  });

  const open = async () => {
    database = await freshDatabase(dialect);
    storage = await openStorage(database.url, { migrate: true });
    return new RateLimitsRepository(storage.db);
  };
  const failOnError = (error: unknown) => {
    throw error;
  };

  it('counts exactly in one process, adds the hits up in the database at flush, and learns the other processes’ hits', async () => {
    const repository = await open();
    const t0 = 1_000_000;
    // Two processes: their own memory, one table; flushed by hand (the timer never fires in this test).
    const [one, two] = [new QuotaCounts(repository, failOnError, NEVER), new QuotaCounts(repository, failOnError, NEVER)];
    expect([1, 2, 3].map(() => one.hit('quota:a', WINDOW, t0).count)).toEqual([1, 2, 3]);
    expect(two.hit('quota:a', WINDOW, t0 + 1000)).toEqual({ count: 1, ttlMs: WINDOW });
    expect(await repository.read('quota:a', t0 + 1000)).toEqual({ count: 0, ttlMs: 0 });

    await one.flush(t0 + 2000);
    // The database's window starts when the first hits reach it.
    expect(await repository.read('quota:a', t0 + 2000)).toEqual({ count: 3, ttlMs: WINDOW });
    await two.flush(t0 + 3000);
    // The second process learns the first one's hits at its flush, and the window the database keeps.
    expect(two.read('quota:a', t0 + 3000)).toEqual({ count: 4, ttlMs: WINDOW - 1000 });
    expect(two.hit('quota:a', WINDOW, t0 + 3000).count).toBe(5);
    // The first one learns the second one's at its next flush.
    expect(one.hit('quota:a', WINDOW, t0 + 4000).count).toBe(4);
    await one.flush(t0 + 5000);
    expect(one.read('quota:a', t0 + 5000).count).toBe(5);
    await two.flush(t0 + 5000);
    expect(await repository.read('quota:a', t0 + 5000)).toEqual({ count: 6, ttlMs: WINDOW - 3000 });

    // Once the window ends, counting starts again from what is hit in the new one.
    const t1 = t0 + 2000 + WINDOW;
    expect(one.hit('quota:a', WINDOW, t1).count).toBe(1);
    await one.flush(t1);
    expect(await repository.read('quota:a', t1)).toEqual({ count: 1, ttlMs: WINDOW });
  });

  it('adds up many keys in one flush, keeps hits the database did not take for the next one, and sends the rest on close', async () => {
    const repository = await open();
    const t0 = 2_000_000;
    let failing = true;
    const errors: unknown[] = [];
    const failingRepository = {
      hitMany: (hits: Parameters<RateLimitsRepository['hitMany']>[0], now?: number) => (failing ? Promise.reject(new Error('database down')) : repository.hitMany(hits, now)),
    } as RateLimitsRepository;
    const counts = new QuotaCounts(failingRepository, (error) => errors.push(error), NEVER);
    for (let i = 0; i < 1500; i++) counts.hit(`quota:m${i}`, WINDOW, t0);
    counts.hit('quota:m0', WINDOW, t0);
    await counts.flush(t0);
    expect(errors).toHaveLength(2);
    expect(counts.read('quota:m0', t0).count).toBe(2);
    failing = false;
    await counts.flush(t0);
    await counts.close();
    expect(await repository.read('quota:m0', t0)).toEqual({ count: 2, ttlMs: WINDOW });
    expect(await repository.read('quota:m1499', t0)).toEqual({ count: 1, ttlMs: WINDOW });
  });

  it('flushes by itself a moment after a hit', async () => {
    const repository = await open();
    const counts = new QuotaCounts(repository, failOnError, 20);
    counts.hit('quota:soon', WINDOW);
    const deadline = Date.now() + 10_000;
    while ((await repository.read('quota:soon')).count === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await repository.read('quota:soon')).count).toBe(1);
    await counts.close();
  });
});
