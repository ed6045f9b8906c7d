import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openStorage } from '../../src/storage/storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { MAX_PAYLOAD_BYTES } from '../../src/storage/notifications.js';
import type { Channel, Notifier } from '../../src/storage/notifications.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import type { TestDatabase } from '../helpers/database.js';
import { eventually } from '../delivery/fixture.js';

/** Everything a subscriber received, in order. */
function record(notifier: Notifier, channel: Channel): string[] {
  const received: string[] = [];
  notifier.subscribe(channel, (payload) => received.push(payload));
  return received;
}

async function recorded(storage: Storage, channel: Channel): Promise<string[]> {
  const received = record(storage.notifier, channel);
  await storage.notifier.ready();
  return received;
}

/** Lets notifications in flight arrive: a marker published after them on the channel arrives after them. */
async function settle(storage: Storage, received: string[], channel: Channel): Promise<void> {
  await storage.notifier.publish(storage.db, channel, 'settled');
  await eventually(async () => received, (list) => list.includes('settled'));
  received.splice(received.indexOf('settled'), 1);
}

describe.each(dialects)('notifier (%s)', (dialect) => {
  let database: TestDatabase;
  const opened: Storage[] = [];
  afterEach(async () => {
    for (const storage of opened.splice(0)) await storage.close();
    await database?.drop();
  });

  async function open(): Promise<Storage> {
    const storage = await openStorage(database.url, { migrate: opened.length === 0 });
    opened.push(storage);
    return storage;
  }

  it('sends what a transaction published once it commits, and only then', async () => {
    database = await freshDatabase(dialect);
    const storage = await open();
    const received = await recorded(storage, 'messages');
    let before: string[] = [];
    await storage.db.transaction().execute(async (trx) => {
      await storage.notifier.publish(trx, 'messages', '{"id":1}');
      await storage.notifier.publish(trx, 'messages', '{"id":2}');
      await storage.notifier.publish(trx, 'messages', '{"id":1}');
      await new Promise((resolve) => setTimeout(resolve, 100));
      before = [...received];
    });
    expect(before).toEqual([]);
    await eventually(async () => received, (list) => list.length >= 2);
    await settle(storage, received, 'messages');
    // The same payload twice in one transaction is one notification.
    expect(received).toEqual(['{"id":1}', '{"id":2}']);
  });

  it('commits the transaction its notifications go with, and sends their payloads as written', async () => {
    database = await freshDatabase(dialect);
    const storage = await open();
    const received = await recorded(storage, 'alerts');
    const odd = ["it's", 'back\\slash \\\'', '$1 $$ ; commit; --', 'é ✓'];
    await storage.db.transaction().execute(async (trx) => {
      await trx.insertInto('settings').values({ name: 'notified', value: 'yes' }).execute();
      for (const payload of odd) await storage.notifier.publish(trx, 'alerts', payload);
    });
    await eventually(async () => received, (list) => list.length >= odd.length);
    await settle(storage, received, 'alerts');
    expect(received).toEqual(odd);
    const other = await open();
    const row = await other.db.selectFrom('settings').select('value').where('name', '=', 'notified').executeTakeFirst();
    expect(row?.value).toBe('yes');
  });

  it('drops what a rolled-back transaction published', async () => {
    database = await freshDatabase(dialect);
    const storage = await open();
    const received = await recorded(storage, 'alerts');
    await expect(
      storage.db.transaction().execute(async (trx) => {
        await storage.notifier.publish(trx, 'alerts', 'never');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await storage.notifier.publish(storage.db, 'alerts', 'at once');
    await eventually(async () => received, (list) => list.includes('at once'));
    expect(received).toEqual(['at once']);
  });

  it('keeps channels apart and stops calling a handler once unsubscribed', async () => {
    database = await freshDatabase(dialect);
    const storage = await open();
    const deliveries = await recorded(storage, 'deliveries');
    const alerts: string[] = [];
    const stop = storage.notifier.subscribe('alerts', (payload) => alerts.push(payload));
    await storage.notifier.ready();
    await storage.notifier.publish(storage.db, 'deliveries', 'd1');
    await storage.notifier.publish(storage.db, 'alerts', 'a1');
    await eventually(async () => [deliveries, alerts], ([d, a]) => d!.length === 1 && a!.length === 1);
    stop();
    await storage.notifier.publish(storage.db, 'alerts', 'a2');
    await storage.notifier.publish(storage.db, 'deliveries', 'd2');
    await eventually(async () => deliveries, (d) => d.length === 2);
    expect(alerts).toEqual(['a1']);
    expect(deliveries).toEqual(['d1', 'd2']);
  });

  it('refuses unknown channels and payloads PostgreSQL could not carry', async () => {
    database = await freshDatabase(dialect);
    const storage = await open();
    await expect(storage.notifier.publish(storage.db, 'nope' as Channel, 'x')).rejects.toThrow(/unknown notification channel "nope"/);
    await expect(storage.notifier.publish(storage.db, 'alerts', 'x'.repeat(MAX_PAYLOAD_BYTES + 1))).rejects.toThrow(/payload over 7999 bytes/);
    await expect(storage.notifier.publish(storage.db, 'alerts', 'x'.repeat(MAX_PAYLOAD_BYTES))).resolves.toBeUndefined();
  });

  it.runIf(dialect === 'postgres')('reaches every process sharing the database, after commit', async () => {
    database = await freshDatabase(dialect);
    const publisher = await open();
    const other = await open();
    const received = record(other.notifier, 'deliveries');
    await other.notifier.ready();
    let before: string[] = [];
    await publisher.db.transaction().execute(async (trx) => {
      await publisher.notifier.publish(trx, 'deliveries', 'app:7');
      await new Promise((resolve) => setTimeout(resolve, 100));
      before = [...received];
    });
    expect(before).toEqual([]);
    await eventually(async () => received, (list) => list.length === 1);
    expect(received).toEqual(['app:7']);
  });

  it.runIf(dialect === 'postgres')('listens again after its connection is killed', async () => {
    database = await freshDatabase(dialect);
    const publisher = await open();
    const listener = await open();
    const received = record(listener.notifier, 'alerts');
    await listener.notifier.ready();
    const killed = await sql<{ n: number }>`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
      where datname = current_database() and query like 'LISTEN%' and pid <> pg_backend_pid()`.execute(publisher.db);
    expect(killed.rows[0]!.n).toBeGreaterThanOrEqual(1);
    // Published until one arrives: those sent while it was away are lost, as documented.
    let n = 0;
    await eventually(
      async () => {
        await publisher.notifier.publish(publisher.db, 'alerts', `after-${n++}`);
        return received;
      },
      (list) => list.length > 0,
    );
    expect(received[0]).toMatch(/^after-\d+$/);
  });
});
