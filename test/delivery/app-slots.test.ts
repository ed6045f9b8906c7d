import { afterEach, describe, expect, it } from 'vitest';
import { PostgresSlots } from '../../src/delivery/app-slots.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

describe.runIf(dialects.includes('postgres'))('app sending slots (postgres)', () => {
  let database: TestDatabase | undefined;
  const opened: PostgresSlots[] = [];
  afterEach(async () => {
    for (const slots of opened.splice(0)) await slots.close();
    await database?.drop();
  });

  const slots = (limit: number) => {
    const made = new PostgresSlots(database!.url, limit, () => {});
    opened.push(made);
    return made;
  };

  it('shares an app’s limit between workers, and frees a worker’s slots when it gives them back or goes away', async () => {
    database = await freshDatabase('postgres');
    const [a, b] = [slots(2), slots(2)];
    expect(await a.acquire(7, 5)).toBe(2);
    expect(await b.acquire(7, 2)).toBe(0);
    // Another app has its own slots.
    expect(await b.acquire(8, 1)).toBe(2);
    await a.release(7);
    expect(a.held(7)).toBe(0);
    expect(await b.acquire(7, 2)).toBe(2);
    expect(await a.acquire(7, 1)).toBe(0);
    // A worker that dies (its connection closes) leaves nothing held.
    await b.close();
    expect(await a.acquire(7, 2)).toBe(2);
    expect(await a.acquire(8, 2)).toBe(2);
  });
});
