import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { enqueueDeliveries } from '../../src/delivery/outbox.js';
import { presentMessage } from '../../src/wire/message.js';
import { VERSION } from '../../src/version.js';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

/** What a receiver does: recompute the HMAC of "<t>.<raw body>" with the app secret. */
function verifies(secret: string, header: string | string[] | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

describe.each(dialects)('delivery worker (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  afterEach(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  it('POSTs the contract body with a verifiable signature and records the delivery', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    const hooked = await fixture.createApp(receiver.url);
    const message = await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });
    const [request] = await receiver.waitFor(1);
    const [delivery] = await fixture.deliveries();

    expect(request!.path).toBe('/hook');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toBe(`snsr/${VERSION}`);
    expect(request!.headers['x-snsr-delivery']).toBe(delivery!.uuid);
    expect(request!.headers['x-snsr-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(verifies(hooked.secret, request!.headers['x-snsr-signature'], request!.body)).toBe(true);
    expect(verifies(hooked.secret, request!.headers['x-snsr-signature'], request!.body.replace('C0FE', 'C0FF'))).toBe(false);
    expect(verifies('another-secret', request!.headers['x-snsr-signature'], request!.body)).toBe(false);
    const t = Number(/^t=(\d+)/.exec(String(request!.headers['x-snsr-signature']))![1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);

    expect(JSON.parse(request!.body)).toEqual({
      msg: { extra: { entry_id: 0, frame_type: 'srv_frm_event', code: 'event_temp_low' }, custom: { temperature_c: -12 } },
      message: presentMessage(message, 'C0FE'),
      module: 'C0FE',
      device: 'C0FE',
      app: hooked.id,
    });
    expect(JSON.parse(request!.body).message).toMatchObject({ when: message.when_ms, lvl: '-121.5', type: 'event:templow', device: 'C0FE', extra: { message: '00000046', temperature_c: -12 } });

    const recorded = await eventually(() => fixture.delivery(delivery!.id), (d) => d.status === 'delivered');
    expect(recorded).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null, lease_owner: null, lease_until: null });
    expect(recorded.delivered_at).toBeGreaterThanOrEqual(request!.at - 1000);
  });

  it('names the child device a message concerns', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    const module = (await fixture.app.context.repositories.devices.bySerial('C0FE'))!;
    const child = await fixture.db
      .insertInto('devices')
      .values({ module_serial: 'C0FE', idx: 3, serial: 'C0FE/3' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(child.id).not.toBe(module.id);
    await fixture.message({ device_id: child.id, entry_id: 3 });
    fixture.app.context.startWorker({ pollMs: 20 });
    const body = JSON.parse((await receiver.waitFor(1))[0]!.body);
    expect(body).toMatchObject({ module: 'C0FE', device: 'C0FE/3', message: { device: 'C0FE/3' }, msg: { extra: { entry_id: 3 } } });
  });

  it('retries a failing receiver with the same X-Snsr-Delivery until it answers 2xx', async () => {
    receiver = await startReceiver((n) => (n < 2 ? { status: 500, body: 'database\nlocked' } : { status: 204 }));
    fixture = await deliveryFixture(dialect);
    await fixture.createApp(receiver.url);
    await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    const requests = await receiver.waitFor(3);
    const [delivery] = await fixture.deliveries();
    expect(new Set(requests.map((r) => r.headers['x-snsr-delivery']))).toEqual(new Set([delivery!.uuid]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    // Exponential backoff from 50 ms with equal jitter: the second wait is at least half of 100 ms.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(25 - 5);
    expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(50 - 5);
    const recorded = await eventually(() => fixture.delivery(delivery!.id), (d) => d.status === 'delivered');
    expect(recorded).toMatchObject({ attempts: 3, last_status_code: 204, last_error: null });
    expect(worker.stats).toMatchObject({ sent: 3, delivered: 1, retrying: 2, failed: 0 });
  });

  it('records the last error of a failed attempt while it waits to retry', async () => {
    receiver = await startReceiver(() => ({ status: 500, body: 'database\nlocked' }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_BACKOFF_MS: '60000' });
    await fixture.createApp(receiver.url);
    await fixture.message();
    const before = Date.now();
    fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(1);
    const [delivery] = await eventually(() => fixture.deliveries(), ([d]) => d!.attempts === 1 && d!.lease_owner === null);
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 500, last_error: 'HTTP 500: database locked', lease_owner: null });
    expect(delivery!.next_attempt_at).toBeGreaterThanOrEqual(before + 30_000);
    expect(delivery!.next_attempt_at).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('gives up after SNSR_DELIVERY_MAX_ATTEMPTS and marks the delivery failed', async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '3', SNSR_DELIVERY_BACKOFF_MS: '20' });
    await fixture.createApp(receiver.url);
    await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(3);
    const [delivery] = await eventually(() => fixture.deliveries(), ([d]) => d!.status === 'failed');
    expect(delivery).toMatchObject({ attempts: 3, last_status_code: 503, last_error: 'HTTP 503', delivered_at: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(3);
  });

  it('counts a timeout, a redirect and a refused connection as failed attempts', async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 3000 }));
    const redirecting = await startReceiver(() => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }));
    const closed = await startReceiver();
    await closed.close(); // nothing listens on its port any more
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '1' });
    const slow = await fixture.createApp(receiver.url, 'slow');
    const moved = await fixture.createApp(redirecting.url, 'moved');
    const gone = await fixture.createApp(closed.url, 'gone');
    await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20, timeoutMs: 300 });
    const rows = await eventually(() => fixture.deliveries(), (ds) => ds.length === 3 && ds.every((d) => d.status === 'failed'));
    const of = (appId: number) => rows.find((d) => d.app_id === appId)!;
    expect(of(slow.id)).toMatchObject({ attempts: 1, last_status_code: null, last_error: 'timeout after 300 ms' });
    expect(of(moved.id)).toMatchObject({ attempts: 1, last_status_code: 302, last_error: 'HTTP 302 (redirects are not followed)' });
    expect(of(gone.id)).toMatchObject({ attempts: 1, last_status_code: null });
    expect(of(gone.id).last_error).toMatch(/ECONNREFUSED/);
    expect(redirecting.received).toHaveLength(1);
    await redirecting.close();
  });

  it('fails a delivery whose app no longer has a callbackurl, without sending', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    const hooked = await fixture.createApp(receiver.url);
    await fixture.message();
    await fixture.app.context.apps.save(fixture.accountId, { id: hooked.id, callbackurl: '' });
    fixture.app.context.startWorker({ pollMs: 20 });
    const [delivery] = await eventually(() => fixture.deliveries(), ([d]) => d!.status === 'failed');
    expect(delivery).toMatchObject({ attempts: 0, last_error: 'the app has no callbackurl' });
    expect(receiver.received).toHaveLength(0);
  });

  it('queues one delivery per app with a callbackurl, and never a second one for the same message', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    const first = await fixture.createApp(receiver.url, 'first');
    const second = await fixture.createApp(receiver.url, 'second');
    await fixture.createApp(null, 'no callback');
    const message = await fixture.message();
    expect(await enqueueDeliveries(fixture.db, message)).toBe(0);
    const rows = await fixture.deliveries();
    expect(rows.map((d) => d.app_id).sort()).toEqual([first.id, second.id].sort());
    expect(rows.every((d) => d.status === 'pending' && d.attempts === 0 && d.message_id === message.id)).toBe(true);
    expect(new Set(rows.map((d) => d.uuid)).size).toBe(2);
    fixture.app.context.startWorker({ pollMs: 20 });
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(2);
  });
});
