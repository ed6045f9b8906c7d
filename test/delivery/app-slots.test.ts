import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { PostgresSlots } from '../../src/delivery/postgres-slots.js';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { dialects, freshDatabase, waitForLockWait } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';

describe.runIf(dialects.includes('postgres'))('app sending slots (postgres)', () => {
  let database: TestDatabase | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    await database?.drop();
  });

  const open = async () => {
    database = await freshDatabase('postgres');
    storage = await openStorage(database.url, { migrate: true });
    return storage.db;
  };
  const rows = () => storage!.db.selectFrom('delivery_slots').select(['app_id', 'slot', 'holder']).orderBy('app_id').orderBy('slot').execute();

  it('shares an app’s limit between workers, and frees a worker’s slots when it gives them back or closes', async () => {
    const db = await open();
    const [a, b] = [new PostgresSlots(db, 'a', 2, 30_000, () => {}), new PostgresSlots(db, 'b', 2, 30_000, () => {})];
    expect(await a.acquire(7, 5)).toBe(2);
    expect(await b.acquire(7, 2)).toBe(0);
    // Another app has its own slots; a worker takes as many as it asks for, not every free one.
    expect(await b.acquire(8, 1)).toBe(1);
    expect((await rows()).map((r) => `${r.app_id}/${r.slot}:${r.holder}`)).toEqual(['7/0:a', '7/1:a', '8/0:b']);
    expect(await a.acquire(8, 2)).toBe(1);
    expect(await b.acquire(8, 2)).toBe(1);
    await a.release(8);
    await a.release(7);
    expect(a.held(7)).toBe(0);
    expect(await b.acquire(7, 2)).toBe(2);
    expect(await a.acquire(7, 1)).toBe(0);
    await b.close();
    expect(await rows()).toEqual([]);
    expect(await a.acquire(7, 2)).toBe(2);
    expect(await a.acquire(8, 2)).toBe(2);
    await a.close();
  });

  it('a worker that stops renewing (stalled, not dead) loses its slots at their end; its fence then says so', async () => {
    const db = await open();
    const stalled = new PostgresSlots(db, 'stalled', 2, 30_000, () => {});
    const other = new PostgresSlots(db, 'other', 2, 30_000, () => {});
    expect(await stalled.acquire(7, 2)).toBe(2);
    const fence = await stalled.fence(7);
    expect(fence.held).toBe(2);
    // Renewed for the lifetime less the margin, on this process's monotonic clock.
    expect(fence.validUntil).toBeGreaterThan(performance.now() + 28_000);
    expect(await other.acquire(7, 2)).toBe(0);
    // The stall: its slots' lifetime goes by in the database.
    await sql`update delivery_slots set until_ms = until_ms - 31000 where holder = 'stalled'`.execute(db);
    expect(await other.acquire(7, 2)).toBe(2);
    expect((await rows()).map((r) => r.holder)).toEqual(['other', 'other']);
    // Waking up, the stalled worker's fence renews nothing: it holds no slot and may not send.
    expect(await stalled.fence(7)).toEqual({ held: 0, validUntil: 0 });
    expect(stalled.held(7)).toBe(0);
    // Its release cannot free what the other worker holds now.
    await stalled.release(7);
    expect(await rows()).toHaveLength(2);
    await stalled.close();
    await other.close();
  });

  it('a renewal that ran before a take landed keeps the slots taken: the sends they started are not fenced', async () => {
    const db = await open();
    const slots = new PostgresSlots(db, 'w', 4, 30_000, () => {});
    expect(await slots.acquire(7, 2)).toBe(2);
    let renewal: Promise<{ held: number }> | undefined;
    await db.transaction().execute(async (trx) => {
      // The held slots' rows are locked: the renewal's update reads the table, then waits on them.
      await sql`select 1 from delivery_slots where holder = 'w' for update`.execute(trx);
      renewal = slots.fence(7);
      await waitForLockWait(db);
      // Meanwhile two more slots are taken (new rows: nothing waits), and sends start on them.
      expect(await slots.acquire(7, 4)).toBe(4);
    });
    // The renewal ends, having found the two slots it could see; the four are still this worker's.
    expect((await renewal!).held).toBe(4);
    expect(slots.held(7)).toBe(4);
    expect((await slots.fence(7)).held).toBe(4);
    expect((await rows()).map((r) => r.holder)).toEqual(['w', 'w', 'w', 'w']);
    await slots.close();
  });
});

