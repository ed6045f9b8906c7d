import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { basic, PASSWORD } from '../helpers/app.js';
import { openSse } from '../helpers/sse-client.js';
import type { SseClient, SseEvent } from '../helpers/sse-client.js';
import { startSnsr } from '../helpers/cli.js';
import { deliveryFixture } from '../delivery/fixture.js';
import type { DeliveryFixture } from '../delivery/fixture.js';
import { startReceiver } from '../delivery/receiver.js';
import type { Receiver } from '../delivery/receiver.js';
import type { DeliveryWorker } from '../../src/delivery/delivery-worker.js';

const T0 = 1_714_567_890;
const data = (events: SseEvent[]) => events.map((e) => JSON.parse(e.data) as Record<string, unknown>);

describe.each(dialects)('delivery events on GET /iot/developers/stream (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  let base: string;
  let flaky: number;
  let broken: number;
  const clients: SseClient[] = [];
  const alice = basic('hooks@example.com', PASSWORD);
  let seq = 0;
  let worker: DeliveryWorker | undefined;

  beforeAll(async () => {
    // The `flaky` app's callback fails once then succeeds; the `broken` app's always fails.
    let flakyCalls = 0;
    receiver = await startReceiver((_, request) => (request.path.includes('broken') ? { status: 503 } : { status: flakyCalls++ === 0 ? 500 : 200 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '2' });
    flaky = (await fixture.createApp(`${receiver.url}?flaky`, 'flaky')).id;
    broken = (await fixture.createApp(`${receiver.url}?broken`, 'broken')).id;
    await fixture.app.context.accounts.create('bob@example.com', PASSWORD);
    base = await fixture.app.server.listen({ port: 0, host: '127.0.0.1' });
    worker = fixture.app.context.startWorker({ pollMs: 20 });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await fixture?.close();
    await receiver?.close();
  });

  const open = async (query = '', headers: Record<string, string> = { authorization: alice }) => {
    const client = await openSse(`${base}/iot/developers/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  const uplink = async () => {
    seq += 1;
    const answer = await fixture.app.server.inject({
      method: 'POST',
      url: '/network/sigfox/uplink',
      headers: { authorization: 'Bearer network-token' },
      payload: { device: 'C0FE', time: T0 + seq, data: '00000046', seqNumber: seq },
    });
    expect(answer.statusCode).toBe(200);
  };

  it('sends each attempt: a failure with its retry, the delivery, giving up; filtered by app and serial; never to another account', async () => {
    const all = await open();
    const onlyFlaky = await open(`?app=${flaky}`);
    const bySerial = await open('?serial=C0FE');
    const bobs = await open('', { authorization: basic('bob@example.com', PASSWORD) });
    expect(all.status).toBe(200);
    await fixture.app.context.streams.hub.ready();
    await uplink();

    // Two attempts per app: four outcomes in all.
    const events = await all.waitFor(4, 'delivery');
    const [message] = await all.waitFor(1, 'message');
    const messageId = JSON.parse(message!.data).id as number;
    const byApp = (app: number) => data(events).filter((e) => e.app === app);

    const [failedOnce, delivered] = byApp(flaky);
    expect(failedOnce).toMatchObject({ app: flaky, module: 'C0FE', device: 'C0FE', outcome: 'retrying', status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500', alert_id: null });
    expect(failedOnce!.next_attempt).toEqual(expect.any(Number));
    expect(failedOnce!.latency_ms).toEqual(expect.any(Number));
    expect(delivered).toMatchObject({ id: failedOnce!.id, uuid: failedOnce!.uuid, outcome: 'delivered', status: 'delivered', attempts: 2, last_status_code: 200, last_error: null, next_attempt: null });
    expect(delivered!.message_id).toBe(messageId);
    expect(byApp(broken).map((e) => [e.outcome, e.attempts, e.last_status_code])).toEqual([
      ['retrying', 1, 503],
      ['failed', 2, 503],
    ]);
    // Event ids keep the three kinds apart and move forward.
    for (const event of events) expect(event.id).toMatch(/^\d+-\d+-\d+-\d+$/);

    const flakyOnly = await onlyFlaky.waitFor(2, 'delivery');
    expect(data(flakyOnly).map((e) => [e.app, e.outcome])).toEqual([
      [flaky, 'retrying'],
      [flaky, 'delivered'],
    ]);
    expect(await bySerial.waitFor(4, 'delivery')).toHaveLength(4);
    // Bob's stream was open all along: once Alice's last event is in, nothing of hers reached it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bobs.events).toEqual([]);
    expect(onlyFlaky.events.filter((e) => e.event === 'delivery')).toHaveLength(2);
  });

  it('resumes delivery events from Last-Event-ID: the outcomes after it, not the one seen', async () => {
    const first = await open(`?app=${flaky}`);
    await fixture.app.context.streams.hub.ready();
    await uplink();
    // The flaky callback now succeeds at once: one outcome for this uplink.
    const [seen] = await first.waitFor(1, 'delivery');
    first.close();
    await uplink();
    await uplink();
    const resumed = await open(`?app=${flaky}`, { authorization: alice, 'last-event-id': seen!.id! });
    const replayed = await resumed.waitFor(2, 'delivery');
    const seenId = JSON.parse(seen!.data).id as number;
    expect(data(replayed).map((e) => e.outcome)).toEqual(['delivered', 'delivered']);
    expect(data(replayed).every((e) => (e.id as number) > seenId && e.app === flaky)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed.events.filter((e) => e.event === 'delivery')).toHaveLength(2);
  });

  it('refuses a malformed Last-Event-ID and accepts the two-part ids of earlier versions', async () => {
    expect((await open('', { authorization: alice, 'last-event-id': '1-2-3' })).status).toBe(400);
    expect((await open('', { authorization: alice, 'last-event-id': '1-2' })).status).toBe(200);
    expect((await open('', { authorization: alice, 'last-event-id': '1-2-3-4' })).status).toBe(200);
  });

  it.runIf(dialect === 'postgres')('shows outcomes recorded by another process’s worker', async () => {
    const client = await open('?serial=C0FE');
    await fixture.app.context.streams.hub.ready();
    // This process stops delivering: the other one's worker records every outcome from here.
    await worker?.stop();
    let other: ChildProcess | undefined;
    try {
      const started = await startSnsr(['serve'], {
        SNSR_DATABASE_URL: fixture.app.context.config.databaseUrl,
        SNSR_NETWORK_TOKEN: 'network-token',
        SNSR_SECRET: 'test-secret',
        SNSR_CALLBACK_ALLOW_PRIVATE: 'true',
        SNSR_DELIVERY_BACKOFF_MS: '50',
        SNSR_DELIVERY_MAX_ATTEMPTS: '2',
        PORT: '0',
        HOST: '127.0.0.1',
      });
      other = started.child;
      await uplink();
      const events = await client.waitFor(3, 'delivery', 20_000);
      expect(data(events).map((e) => [e.app, e.outcome]).sort()).toEqual(
        [
          [broken, 'retrying'],
          [broken, 'failed'],
          [flaky, 'delivered'],
        ].sort(),
      );
    } finally {
      other?.kill('SIGTERM');
    }
  }, 60_000);
});
