import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startSnsr } from '../helpers/cli.js';
import { dialects, waitForLockWait } from '../helpers/database.js';
import { deliveryFixture } from '../delivery/fixture.js';
import type { DeliveryFixture } from '../delivery/fixture.js';

const PER_APP = 2;
const TOTAL = 10;
const LEASE_MS = 15_000;

/** Polls until `check` holds; generous, since a loaded machine is slow but gets there. */
async function until<T>(probe: () => Promise<T> | T, check: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A receiver that can hold requests unanswered, counting every request per delivery and the most in flight. */
async function holdingReceiver() {
  const received = new Map<string, number>();
  const held: ServerResponse[] = [];
  let holding = true;
  let inFlight = 0;
  let most = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const uuid = String(request.headers['x-snsr-delivery']);
      received.set(uuid, (received.get(uuid) ?? 0) + 1);
      most = Math.max(most, ++inFlight);
      response.on('close', () => inFlight--);
      if (holding) held.push(response);
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    held: () => held.length,
    most: () => most,
    /** Answers what it holds (200) and everything from now on at once. */
    answer: () => {
      holding = false;
      for (const response of held.splice(0)) response.end();
    },
    connections: () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe.runIf(dialects.includes('postgres'))('a stalled snsr worker (SIGSTOP) on PostgreSQL', () => {
  let fixture: DeliveryFixture | undefined;
  let receiver: Awaited<ReturnType<typeof holdingReceiver>> | undefined;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await receiver?.close();
    await fixture?.close();
  });

  it('loses its claims and slots to the other worker, and on waking sends nothing it lost', async () => {
    receiver = await holdingReceiver();
    fixture = await deliveryFixture('postgres', { SNSR_DELIVERY_PER_APP_CONCURRENCY: String(PER_APP) });
    const { db } = fixture;
    const app = await fixture.createApp(receiver.url);
    for (let i = 0; i < TOTAL; i++) await fixture.message();
    const env = {
      SNSR_DATABASE_URL: fixture.app.context.config.databaseUrl,
      SNSR_SECRET: 'test-secret',
      SNSR_CALLBACK_ALLOW_PRIVATE: 'true',
      SNSR_DELIVERY_PER_APP_CONCURRENCY: String(PER_APP),
      SNSR_DELIVERY_TIMEOUT_MS: '2000',
      SNSR_DELIVERY_LEASE_MS: String(LEASE_MS),
      LOG_FORMAT: 'json',
    };

    // The worker to stall sends two requests (the receiver holds them) on the app's two slots and
    // holds more claims behind them: four rounds of the per-app limit, which its 15 s leases outlast
    // at the 2 s timeout.
    const stalled = await startSnsr(['worker'], env, 'snsr worker running');
    children.push(stalled.child);
    const mine = `%:${stalled.child.pid}:%`;
    const leasedByStalled = () => db.selectFrom('deliveries').select(['id', 'uuid']).where('lease_owner', 'like', mine).where('status', '=', 'pending').execute();
    const slotsOfStalled = () => db.selectFrom('delivery_slots').select('slot').where('app_id', '=', app.id).where('holder', 'like', mine).execute();
    await until(async () => [receiver!.held(), (await leasedByStalled()).length, (await slotsOfStalled()).length], ([held, leased, slots]) => held === PER_APP && leased === 4 * PER_APP && slots === PER_APP);

    // Catch it between the fence and the write: its slot rows are locked, so the fence of its next
    // sends (which renews them) waits in the database. The two held requests are answered; the
    // worker starts the next two, and their fence blocks.
    const locker = await fixture.app.context.storage.db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      await sql`select slot from delivery_slots where app_id = ${app.id} for update`.execute(connection);
      receiver!.answer();
      await waitForLockWait(db, '%delivery_slots%');
      // The two answered are recorded first (that write needs no slot row): stopped while recording
      // them, the worker would lose that transaction to the idle-in-transaction bound, and the
      // deliveries would go out again, as they may after any stop between an answer and its record.
      await until(
        () => db.selectFrom('deliveries').select('id').where('status', '=', 'delivered').execute(),
        (rows) => rows.length === PER_APP,
      );
      // Stopped there, with claims in its queue and slots in the table; then the fence is let through.
      stalled.child.kill('SIGSTOP');
      await sql`commit`.execute(connection);
      return 'released';
    });
    expect(locker).toBe('released');
    // Its statements under way have reached the database (the fence renewing its slots among them).
    await until(
      () => sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(db),
      (result) => result.rows[0]!.n === 0,
    );
    const stalledIds = (await leasedByStalled()).map((row) => row.id);
    expect(stalledIds.length).toBeGreaterThanOrEqual(PER_APP);
    const sentBeforeStall = [...receiver.received.values()].reduce((sum, n) => sum + n, 0);
    expect(sentBeforeStall).toBe(PER_APP);

    // The other worker takes over once the leases and the slots end, and delivers everything.
    const other = await startSnsr(['worker'], env, 'snsr worker running');
    children.push(other.child);
    await until(
      () => db.selectFrom('deliveries').select('status').execute(),
      (rows) => rows.length === TOTAL && rows.every((row) => row.status === 'delivered'),
    );
    const takenOver = await db.selectFrom('delivery_slots').select('holder').where('app_id', '=', app.id).execute();
    expect(takenOver.every((row) => !row.holder.includes(`:${stalled.child.pid}:`))).toBe(true);

    // Woken, the stalled worker finds its fences' answers stale and its claims lost: nothing is sent.
    stalled.child.kill('SIGCONT');
    await until(stalled.output, (output) => output.includes('before the request went out; not sent'));
    for (const worker of [stalled, other]) {
      const exited = new Promise((resolve) => worker.child.once('exit', resolve));
      worker.child.kill('SIGTERM');
      await exited;
    }
    // Both are gone: whatever they wrote has been read.
    await until(receiver.connections, (count) => count === 0);

    expect(receiver.received.size).toBe(TOTAL);
    expect([...receiver.received.values()].filter((count) => count > 1)).toEqual([]);
    expect(receiver.most()).toBeLessThanOrEqual(PER_APP);
    expect(stalled.output()).not.toContain('callback result came after its lease was lost');
    // Attempts are counted at claim: the stalled worker's lost claims count one each, as a dead
    // worker's would; the others were sent on their first.
    const rows = await db.selectFrom('deliveries').select(['id', 'attempts']).execute();
    for (const row of rows) expect([row.id, row.attempts]).toEqual([row.id, stalledIds.includes(row.id) ? 2 : 1]);
  }, 240_000);
});
