import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, PASSWORD } from '../../helpers/app.js';
import { deliveryFixture, eventually } from '../../delivery/fixture.js';
import type { DeliveryFixture } from '../../delivery/fixture.js';
import { startReceiver } from '../../delivery/receiver.js';
import type { Receiver } from '../../delivery/receiver.js';

const DAY = 86_400_000;
/** The receiver holds every answer this long, so the measured latency has a floor to check. */
const HOLD_MS = 60;

describe.each(dialects)('webhook health, test callback and bulk retry, through a worker and a real receiver (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  let answer = 200;
  let auth: string;
  let other: string;
  let appId: number;
  let secret: string;
  let bareAppId: number;
  let otherAppId: number;

  const call = (method: 'GET' | 'POST', url: string, authorization?: string, payload?: object) =>
    fixture.app.server.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload && { payload }) });
  const health = async () => (await call('GET', `/iot/developers/apps/health.json?id=${appId}`, auth)).json();
  const statuses = async () => (await fixture.deliveries()).filter((row) => row.app_id === appId).map((row) => row.status);

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: answer, delayMs: HOLD_MS, body: answer >= 300 ? 'receiver says no' : '' }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '1' });
    auth = basic('hooks@example.com', PASSWORD);
    const { account } = await fixture.app.context.accounts.create('other@example.com', PASSWORD);
    other = basic('other@example.com', PASSWORD);
    ({ id: appId, secret } = await fixture.createApp(receiver.url));
    bareAppId = (await fixture.app.context.apps.save(fixture.accountId, { name: 'no url' })).id;
    otherAppId = (await fixture.app.context.apps.save(account.id, { name: 'theirs', callbackurl: receiver.url })).id;
    fixture.app.context.startWorker({ pollMs: 20 });
  });
  afterAll(async () => {
    await fixture.close();
    await receiver.close();
  });

  it('answers 401 without credentials and 404 for an app the caller does not own', async () => {
    const routes = [
      ['GET', `/iot/developers/apps/health.json?id=${appId}`],
      ['POST', `/iot/developers/apps/test.json?id=${appId}`],
      ['POST', `/iot/developers/apps/${appId}/deliveries/retry.json?all_failed=true`],
    ] as const;
    for (const [method, url] of routes) expect((await call(method, url)).statusCode, url).toBe(401);
    for (const [method, url] of routes) {
      const response = await call(method, url, other);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found', message: `app ${appId} not found` });
    }
    expect((await call('GET', '/iot/developers/apps/health.json?id=999999', auth)).statusCode).toBe(404);
    expect(receiver.received).toHaveLength(0);
  });

  it('names the bad parameter with a 400', async () => {
    const cases = [
      ['GET', '/iot/developers/apps/health.json', 'id is required'],
      ['GET', '/iot/developers/apps/health.json?id=abc', 'id must be an integer'],
      ['POST', '/iot/developers/apps/test.json', 'id is required'],
      ['POST', `/iot/developers/apps/${appId}/deliveries/retry.json`, 'ids (a list of delivery ids) or all_failed=true is required'],
      ['POST', `/iot/developers/apps/${appId}/deliveries/retry.json?ids=1,x`, 'ids must be positive integers'],
      ['POST', `/iot/developers/apps/${appId}/deliveries/retry.json?ids=1&all_failed=true`, 'either ids or all_failed'],
      ['POST', `/iot/developers/apps/${appId}/deliveries/retry.json?all_failed=maybe`, 'all_failed must be true or false'],
    ] as const;
    for (const [method, url, message] of cases) {
      const response = await call(method, url, auth);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message, url).toContain(message);
    }
  });

  it('starts empty: nothing delivered, no rate, no latency, no error', async () => {
    const now = Date.now();
    const body = await health();
    expect(body).toEqual({
      app: appId,
      since: expect.any(Number),
      delivered: 0,
      failed: 0,
      retrying: 0,
      queued: 0,
      failed_total: 0,
      success_rate: null,
      latency_ms: { p50: null, p95: null, samples: 0 },
      last_error: null,
    });
    expect(Math.abs(body.since - (now - DAY))).toBeLessThan(5000);
  });

  it('sums up the last day of real sends: success rate, latency measured by the worker, the last error', async () => {
    answer = 200;
    for (let i = 0; i < 3; i++) await fixture.message();
    await eventually(statuses, (list) => list.length === 3 && list.every((s) => s === 'delivered'));
    answer = 500;
    for (let i = 0; i < 2; i++) await fixture.message();
    await eventually(statuses, (list) => list.filter((s) => s === 'failed').length === 2);

    const body = await health();
    expect(body).toMatchObject({ delivered: 3, failed: 2, retrying: 0, queued: 0, failed_total: 2, success_rate: 0.6 });
    expect(body.latency_ms.samples).toBe(5);
    expect(body.latency_ms.p50).toBeGreaterThanOrEqual(HOLD_MS - 5);
    expect(body.latency_ms.p95).toBeGreaterThanOrEqual(body.latency_ms.p50);
    const failed = (await fixture.deliveries()).filter((row) => row.status === 'failed').at(-1)!;
    expect(body.last_error).toEqual({ delivery: failed.id, at: Number(failed.updated_at), status_code: 500, error: 'HTTP 500: receiver says no' });

    // Older than a day: out of the window.
    await fixture.db.updateTable('deliveries').set({ updated_at: Date.now() - 2 * DAY }).where('id', '=', failed.id).execute();
    expect(await health()).toMatchObject({ delivered: 3, failed: 1, failed_total: 2, success_rate: 0.75, latency_ms: { samples: 4 } });
    await fixture.db.updateTable('deliveries').set({ updated_at: Date.now() }).where('id', '=', failed.id).execute();
  });

  it('sends a signed test callback of type "test" now and answers how it went, recording nothing', async () => {
    const before = (await fixture.deliveries()).length;
    const seen = receiver.received.length;
    answer = 200;
    const ok = await call('POST', `/iot/developers/apps/test.json?id=${appId}`, auth);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true, status_code: 200, latency_ms: expect.any(Number), error: null });
    expect(ok.json().latency_ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
    const request = receiver.received[seen]!;
    expect(request.headers['x-snsr-test']).toBe('1');
    expect(request.headers['x-snsr-delivery']).toMatch(/^test-[0-9a-f-]{36}$/);
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({ type: 'test', app: appId });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-snsr-signature']))!;
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex'));

    answer = 503;
    const refused = await call('POST', '/iot/developers/apps/test.json', auth, { id: appId });
    expect(refused.json()).toMatchObject({ ok: false, status_code: 503, error: 'HTTP 503: receiver says no' });
    expect((await fixture.deliveries()).length).toBe(before);

    const none = await call('POST', `/iot/developers/apps/test.json?id=${bareAppId}`, auth);
    expect(none.statusCode).toBe(409);
    expect(none.json().message).toContain('has no callbackurl');
    answer = 200;
  });

  it('queues failed deliveries again, by id or all of them, and the worker delivers them', async () => {
    const failed = (await fixture.deliveries()).filter((row) => row.app_id === appId && row.status === 'failed').map((row) => row.id);
    expect(failed).toHaveLength(2);
    answer = 200;
    // Another app's delivery id, and a delivered one, are not this app's failed deliveries.
    const delivered = (await fixture.deliveries()).find((row) => row.status === 'delivered')!.id;
    const some = await call('POST', `/iot/developers/apps/${appId}/deliveries/retry.json`, auth, { ids: [failed[0], delivered, 999999] });
    expect(some.statusCode).toBe(200);
    expect(some.json()).toEqual({ requeued: 1 });
    await eventually(() => fixture.delivery(failed[0]!), (row) => row.status === 'delivered');
    expect((await fixture.delivery(failed[1]!)).status).toBe('failed');
    expect((await call('POST', `/iot/developers/apps/${otherAppId}/deliveries/retry.json?all_failed=true`, auth)).statusCode).toBe(404);

    const all = await call('POST', `/iot/developers/apps/${appId}/deliveries/retry.json?all_failed=true`, auth);
    expect(all.json()).toEqual({ requeued: 1 });
    await eventually(statuses, (list) => list.every((s) => s === 'delivered'));
    expect(await health()).toMatchObject({ delivered: 5, failed: 0, failed_total: 0, success_rate: 1 });
    expect((await call('POST', `/iot/developers/apps/${appId}/deliveries/retry.json?all_failed=1`, auth)).json()).toEqual({ requeued: 0 });

    const audit = await call('GET', '/iot/developers/audit.json', auth);
    const actions = audit.json().map((entry: { action: string }) => entry.action);
    expect(actions).toContain('delivery.retry_many');
    expect(actions).toContain('app.test');
  });
});
