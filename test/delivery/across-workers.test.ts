import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { sql } from 'kysely';
import { CallbackSender } from '../../src/delivery/callback-sender.js';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

describe.each(dialects)('delivery across workers (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  const others: Context[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const context of others.splice(0)) await context.close();
    await fixture?.close();
    await receiver?.close();
  });

  /** Another snsr process on the same database, as far as the outbox can tell. */
  async function secondProcess(): Promise<Context> {
    const context = await createContext(fixture.app.context.config, { log: pino({ level: 'silent' }), migrate: false });
    others.push(context);
    return context;
  }

  async function inFlightLimitHeld(env: Record<string, string>): Promise<void> {
    const inFlight = new Map<string, number>();
    const most = new Map<string, number>();
    receiver = await startReceiver((_n, request) => {
      const app = String(JSON.parse(request.body).app);
      const now = (inFlight.get(app) ?? 0) + 1;
      inFlight.set(app, now);
      most.set(app, Math.max(most.get(app) ?? 0, now));
      setTimeout(() => inFlight.set(app, inFlight.get(app)! - 1), 40);
      return { status: 200, delayMs: 40 };
    });
    // Room for 2 sends per worker: one worker cannot take every app's whole share, so both send.
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '2', SNSR_DELIVERY_PER_APP_CONCURRENCY: '2', ...env });
    await fixture.createApp(receiver.url, 'one');
    await fixture.createApp(receiver.url, 'two');
    const total = 24;
    for (let i = 0; i < total; i++) await fixture.message();
    const workers = [fixture.app.context.startWorker({ pollMs: 10 }), (await secondProcess()).startWorker({ pollMs: 10 })];
    await receiver.waitFor(total * 2, 30_000);
    await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered' && d.attempts === 1), 15_000);
    expect(receiver.received).toHaveLength(total * 2);
    // Two workers with room for 2 each, yet never more than 2 requests of one app at a time. (How
    // close each app came to 2 depends on the machine's load; only the bound is the behaviour.)
    expect(most.size).toBe(2);
    for (const peak of most.values()) expect(peak).toBeLessThanOrEqual(2);
    expect(workers[0]!.stats.sent + workers[1]!.stats.sent).toBe(total * 2);
    expect(workers[0]!.stats.sent).toBeGreaterThan(0);
    expect(workers[1]!.stats.sent).toBeGreaterThan(0);
  }

  it("holds an app's in-flight limit across every worker, not per worker", () => inFlightLimitHeld({}));

  it.runIf(dialect === 'postgres')("holds it through Redis when SNSR_REDIS_URL is set", () => inFlightLimitHeld({ SNSR_REDIS_URL: 'redis://127.0.0.1:6379' }));

  it.runIf(dialect === 'postgres')('a worker shut out of an app’s slots hands its claims back uncounted, for the slots’ holder to send', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_PER_APP_CONCURRENCY: '2' });
    const app = await fixture.createApp(receiver.url);
    for (let i = 0; i < 4; i++) await fixture.message();
    // Another worker holds both of the app's slots and none of its deliveries (as one whose claims
    // were just sent). Kept by this worker, the claims would wait on slots that wait on claims.
    await sql`insert into delivery_slots (app_id, slot, holder, until_ms)
      select ${app.id}, s, 'other', (extract(epoch from clock_timestamp()) * 1000)::bigint + 600000 from generate_series(0, 1) as s`.execute(fixture.db);
    // Shut out for a poll interval after each ask: long enough to see the claims handed back.
    const worker = fixture.app.context.startWorker({ pollMs: 2000 });
    await eventually(async () => worker.stats.yielded, (yielded) => yielded >= 4);
    const handedBack = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.lease_owner === null));
    expect(handedBack.map((d) => d.attempts)).toEqual([0, 0, 0, 0]);
    expect(receiver.received).toHaveLength(0);
    // The other worker's slots end: this one takes them and sends each delivery once, every claim
    // handed back before it uncounted.
    await sql`delete from delivery_slots where holder = 'other'`.execute(fixture.db);
    const delivered = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'));
    expect(delivered.map((d) => d.attempts)).toEqual([1, 1, 1, 1]);
    expect(receiver.received).toHaveLength(4);
    expect(worker.stats.fenced).toBe(0);
  });

  it.runIf(dialect === 'postgres')('while the slots’ store is unreachable a worker keeps its claims: it is not shut out', async () => {
    receiver = await startReceiver();
    // Nothing listens on port 1: every ask for slots fails at once, as with Redis down.
    fixture = await deliveryFixture(dialect, { SNSR_REDIS_URL: 'redis://127.0.0.1:1' });
    await fixture.createApp(receiver.url);
    for (let i = 0; i < 2; i++) await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.lease_owner === worker.owner));
    // Many rounds of asking later: still this worker's claims, none handed back or sent.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(worker.stats.yielded).toBe(0);
    expect((await fixture.deliveries()).map((d) => [d.lease_owner, d.attempts])).toEqual([
      [worker.owner, 1],
      [worker.owner, 1],
    ]);
    expect(receiver.received).toHaveLength(0);
  });

  it('a worker that stalled past its lease never sends what it had claimed; the new holder sends it once', async () => {
    const uuids: string[] = [];
    receiver = await startReceiver((n, request) => {
      uuids.push(String(request.headers['x-snsr-delivery']));
      return { status: 200, delayMs: n === 0 ? 1500 : 0 };
    });
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '1' });
    await fixture.createApp(receiver.url);
    await fixture.message();
    await fixture.message();
    const stalled = fixture.app.context.startWorker({ pollMs: 20, leaseMs: 10_000, timeoutMs: 2000 });
    // One send in flight (held 1.5 s by the receiver), the other claimed behind it.
    await receiver.waitFor(1);
    const held = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.lease_owner === stalled.owner));
    const waiting = held.find((d) => d.uuid !== uuids[0])!;
    // The stall: to this process a minute goes by; in the database the waiting claim's lease ends.
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + 60_000);
    await fixture.db.updateTable('deliveries').set({ lease_until: sql<number>`lease_until - 20000` }).where('id', '=', waiting.id).execute();
    const other = (await secondProcess()).startWorker({ pollMs: 20 });

    await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'), 15_000);
    expect(uuids.filter((uuid) => uuid === waiting.uuid)).toHaveLength(1);
    expect(uuids).toHaveLength(2);
    expect(other.stats.sent).toBe(1);
    expect(stalled.stats.sent).toBe(1);
  });

  it('fences on the database: a claim lost there is not sent, though the worker’s own clock says it holds', async () => {
    receiver = await startReceiver((n) => ({ status: 200, delayMs: n === 0 ? 1000 : 0 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_CONCURRENCY: '1' });
    await fixture.createApp(receiver.url);
    await fixture.message();
    await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20, leaseMs: 30_000, timeoutMs: 2000 });
    const [first] = await receiver.waitFor(1);
    const held = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.lease_owner === worker.owner));
    const waiting = held.find((d) => d.uuid !== first!.headers['x-snsr-delivery'])!;
    // Another worker holds it now (as after this one stalled past the lease and it was re-claimed).
    await fixture.db.updateTable('deliveries').set({ lease_owner: 'another', lease_until: sql<number>`lease_until + 60000` }).where('id', '=', waiting.id).execute();
    await eventually(async () => worker.stats.fenced, (fenced) => fenced === 1);
    await eventually(() => fixture.delivery(held.find((d) => d.id !== waiting.id)!.id), (d) => d.status === 'delivered');
    expect(receiver.received).toHaveLength(1);
    // The other holder's claim is untouched: the hand-back names this worker's lease.
    expect(await fixture.delivery(waiting.id)).toMatchObject({ status: 'pending', lease_owner: 'another', attempts: 1 });
  });

  it('a stall between the database fence and the write: nothing is written, the claim goes back uncounted and is sent once', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    await fixture.message();
    // The first send stalls a minute after the fence answered, before the request is written.
    const send = CallbackSender.prototype.send;
    let stalled = false;
    vi.spyOn(CallbackSender.prototype, 'send').mockImplementation(function (this: CallbackSender, ...args) {
      if (!stalled) {
        stalled = true;
        const now = performance.now.bind(performance);
        vi.spyOn(performance, 'now').mockImplementation(() => now() + 60_000);
      }
      return send.apply(this, args);
    });
    const worker = fixture.app.context.startWorker({ pollMs: 20, leaseMs: 30_000, timeoutMs: 2000 });
    const [delivery] = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'));
    expect(stalled).toBe(true);
    expect(worker.stats).toMatchObject({ fenced: 1, sent: 1, delivered: 1 });
    expect(receiver.received).toHaveLength(1);
    expect(delivery!.attempts).toBe(1);
  });

  it('counts an attempt when it is claimed, so a worker dying mid-send still uses one up', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '2' });
    await fixture.createApp(receiver.url);
    const message = await fixture.message();
    const [delivery] = await fixture.deliveries();
    // Two claims whose workers died before recording anything: the limit is used up.
    await fixture.db.updateTable('deliveries').set({ attempts: 2, lease_owner: 'dead', lease_until: 1 }).where('id', '=', delivery!.id).execute();
    fixture.app.context.startWorker({ pollMs: 20 });
    const failed = await eventually(() => fixture.delivery(delivery!.id), (d) => d.status === 'failed');
    expect(failed).toMatchObject({ attempts: 2, lease_owner: null, last_error: 'gave up after 2 attempts; the last ended without a result (its worker stopped)' });
    expect(receiver.received).toHaveLength(0);
    expect(message.id).toBe(delivery!.message_id);
  });
});
