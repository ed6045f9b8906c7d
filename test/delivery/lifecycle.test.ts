import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { DeliveryQueue } from '../../src/delivery/delivery-queue.js';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(dialects)('delivery worker lifecycle (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  const others: Context[] = [];
  afterEach(async () => {
    for (const context of others.splice(0)) await context.close();
    await fixture?.close();
    await receiver?.close();
  });

  /** Another process on the same database: its own context, connection pool and worker. */
  async function secondProcess(): Promise<Context> {
    const context = await createContext(fixture.app.context.config, { log: pino({ level: 'silent' }), migrate: false });
    others.push(context);
    return context;
  }

  it('a restart in the middle of a backoff still delivers, once, when it is due', async () => {
    receiver = await startReceiver((n) => ({ status: n === 0 ? 500 : 200 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_BACKOFF_MS: '1200' });
    await fixture.createApp(receiver.url);
    await fixture.message();
    const first = fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(1);
    const [waiting] = await eventually(() => fixture.deliveries(), ([d]) => d!.attempts === 1 && d!.lease_owner === null);
    await first.stop();
    expect(waiting).toMatchObject({ status: 'pending', lease_owner: null });

    const restarted = await secondProcess();
    restarted.startWorker({ pollMs: 20 });
    const requests = await receiver.waitFor(2);
    expect(requests[1]!.at).toBeGreaterThanOrEqual(waiting!.next_attempt_at - 5);
    expect(requests[1]!.headers['x-snsr-delivery']).toBe(requests[0]!.headers['x-snsr-delivery']);
    await eventually(() => fixture.deliveries(), ([d]) => d!.status === 'delivered' && d!.attempts === 2);
    await sleep(300);
    expect(receiver.received).toHaveLength(2);
  });

  it('reclaims the claim of a worker that died once its lease expires', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    await fixture.message();
    const queue = new DeliveryQueue(fixture.db, fixture.app.context.storage.capabilities);
    // Due at its enqueue time on this process's clock; the claim reads the database's, which may be a
    // millisecond behind it: claim once it is due there.
    const claimed = await eventually(
      () => queue.claim({ owner: 'dead-worker', leaseMs: 600, limit: 10, perAppLimit: 4, allowance: () => 10 }),
      (rows) => rows.length > 0,
    );
    expect(claimed).toHaveLength(1);
    const leased = await fixture.delivery(claimed[0]!.id);
    expect(leased).toMatchObject({ lease_owner: 'dead-worker', lease_until: claimed[0]!.lease.until, attempts: 1 });

    fixture.app.context.startWorker({ pollMs: 20 });
    await sleep(300);
    expect(receiver.received).toHaveLength(0);
    const [request] = await receiver.waitFor(1);
    expect(request!.at).toBeGreaterThanOrEqual(leased.lease_until! - 5);
    // Attempts are counted when claimed: the dead worker's claim was one, whatever became of it.
    await eventually(() => fixture.delivery(claimed[0]!.id), (d) => d.status === 'delivered' && d.attempts === 2);
    // The dead worker's late report cannot overwrite the new holder's result.
    expect(await queue.complete(claimed[0]!.lease, claimed[0]!.id, { status: 'failed', attempts: 1, statusCode: 500, error: 'HTTP 500' })).toBe(false);
    expect((await fixture.delivery(claimed[0]!.id)).status).toBe('delivered');
  });

  it('SIGTERM-style stop lets a quick in-flight send finish', async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(1);
    await worker.stop(5000);
    const [delivery] = await fixture.deliveries();
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('stop cuts off sends that outlast the grace period and queues them again, unchanged', async () => {
    receiver = await startReceiver((n) => (n === 0 ? { status: 200, delayMs: 5000 } : { status: 200 }));
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(1);
    const started = Date.now();
    await worker.stop(200);
    expect(Date.now() - started).toBeLessThan(2000);
    const [released] = await fixture.deliveries();
    expect(released).toMatchObject({ status: 'pending', attempts: 0, lease_owner: null, lease_until: null });
    expect(worker.active).toBe(false);

    (await secondProcess()).startWorker({ pollMs: 20 });
    const requests = await receiver.waitFor(2);
    expect(requests[1]!.headers['x-snsr-delivery']).toBe(requests[0]!.headers['x-snsr-delivery']);
    await eventually(() => fixture.deliveries(), ([d]) => d!.status === 'delivered' && d!.attempts === 1);
  });

  it('stop hands back claims it had not started sending', async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 400 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '1' });
    await fixture.createApp(receiver.url);
    for (let i = 0; i < 3; i++) await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(1);
    // One send in flight, one more claimed ahead of it (twice the concurrency is held).
    const held = await fixture.deliveries();
    expect(held.filter((d) => d.lease_owner === worker.owner)).toHaveLength(2);
    await worker.stop(5000);
    const after = await fixture.deliveries();
    expect(after.map((d) => [d.status, d.attempts, d.lease_owner])).toEqual([
      ['delivered', 1, null],
      ['pending', 0, null],
      ['pending', 0, null],
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it('two workers over one outbox never send a delivery twice', async () => {
    const uuids = new Map<string, number>();
    receiver = await startReceiver((_n, request) => {
      const uuid = String(request.headers['x-snsr-delivery']);
      uuids.set(uuid, (uuids.get(uuid) ?? 0) + 1);
      return { status: 200, delayMs: Math.floor(Math.random() * 4) };
    });
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '8', SNSR_DELIVERY_PER_APP_CONCURRENCY: '8' });
    await fixture.createApp(receiver.url, 'one');
    await fixture.createApp(receiver.url, 'two');
    const total = 120;
    for (let i = 0; i < total; i++) await fixture.message();
    const workers = [fixture.app.context.startWorker({ pollMs: 5 }), (await secondProcess()).startWorker({ pollMs: 5 })];
    await receiver.waitFor(total * 2, 30_000);
    await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'), 15_000);
    await sleep(300);
    expect(receiver.received).toHaveLength(total * 2);
    expect(uuids.size).toBe(total * 2);
    expect([...uuids.values()].every((count) => count === 1)).toBe(true);
    expect(workers[0]!.stats.sent + workers[1]!.stats.sent).toBe(total * 2);
    // Both really took part: the test would prove nothing if one worker did all the work.
    expect(workers[0]!.stats.sent).toBeGreaterThan(0);
    expect(workers[1]!.stats.sent).toBeGreaterThan(0);
  });

  it("one app's slow receiver holds only its own share: other apps are delivered meanwhile", async () => {
    const slow = await startReceiver(() => ({ status: 200, delayMs: 4000 }));
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '4', SNSR_DELIVERY_PER_APP_CONCURRENCY: '2' });
    await fixture.createApp(slow.url, 'slow');
    for (let i = 0; i < 20; i++) await fixture.message(); // a backlog for the slow app, older than the rest
    await fixture.createApp(receiver.url, 'fast');
    for (let i = 0; i < 5; i++) await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });
    // Both apps' first requests go out together; which reaches its receiver first is the machine's
    // choice, so each is waited for.
    const fast = await receiver.waitFor(5, 30_000);
    // In the order they arrived: the first is the earliest.
    const [first, , third] = await slow.waitFor(3, 15_000);
    // All of the fast app's before the slow receiver answered even its first two.
    expect(fast[4]!.at).toBeLessThan(first!.at + 4000);
    // The slow app never has more than its share in flight: a third request only once one answered.
    expect(third!.at).toBeGreaterThanOrEqual(first!.at + 4000 - 20);
    await slow.close();
  });

  // With shared slots (PostgreSQL), a worker leases rounds of an app's sends ahead of them, so that
  // a backlog's sends never wait on a claim; without (SQLite), leases are the app's limit itself.
  it("one app's backlog: its limit in flight, and (PostgreSQL) four rounds of it leased ahead", async () => {
    // Answers late enough that none of the first four has ended when the test looks.
    const slow = await startReceiver(() => ({ status: 200, delayMs: 8000 }));
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(slow.url, 'backlog');
    for (let i = 0; i < 40; i++) await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });
    const leased = (ds: { lease_owner: string | null }[]) => ds.filter((d) => d.lease_owner !== null).length;
    const expected = dialect === 'postgres' ? 16 : 4;
    await eventually(() => fixture.deliveries(), (ds) => leased(ds) === expected);
    await slow.waitFor(4);
    await sleep(200);
    expect(slow.received).toHaveLength(4);
    expect(leased(await fixture.deliveries())).toBe(expected);
    await slow.close();
  });

  it('prunes delivered rows past the retention period and keeps failed ones', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_RETENTION_DAYS: '7' });
    await fixture.createApp(receiver.url);
    for (let i = 0; i < 4; i++) await fixture.message();
    const [oldDelivered, oldFailed, recent, pending] = await fixture.deliveries();
    const day = 86_400_000;
    const now = Date.now();
    const set = (id: number, fields: object) => fixture.db.updateTable('deliveries').set(fields).where('id', '=', id).execute();
    await set(oldDelivered!.id, { status: 'delivered', delivered_at: now - 8 * day, next_attempt_at: now - 8 * day, attempts: 1 });
    await set(oldFailed!.id, { status: 'failed', next_attempt_at: now - 30 * day, attempts: 8 });
    await set(recent!.id, { status: 'delivered', delivered_at: now - 6 * day, next_attempt_at: now - 6 * day, attempts: 1 });
    await set(pending!.id, { next_attempt_at: now + day });
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    await eventually(() => fixture.deliveries(), (ds) => ds.length === 3);
    expect((await fixture.deliveries()).map((d) => d.id)).toEqual([oldFailed!.id, recent!.id, pending!.id]);
    expect(await worker.prune()).toBe(0);
    expect(await worker.prune(now + 2 * day)).toBe(1);
    expect(receiver.received).toHaveLength(0);
  });
});
