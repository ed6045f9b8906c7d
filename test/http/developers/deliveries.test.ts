import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, PASSWORD } from '../../helpers/app.js';
import { deliveryFixture } from '../../delivery/fixture.js';
import type { DeliveryFixture } from '../../delivery/fixture.js';

const KEYS = ['id', 'uuid', 'message_id', 'when', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt', 'created', 'delivered', 'kind', 'alert_id'];

describe.each(dialects)('delivery log and retry (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let auth: string;
  let other: string;
  let appId: number;
  let otherAppId: number;
  let ids: number[];
  let messages: { id: number; when_ms: number }[];

  beforeAll(async () => {
    fixture = await deliveryFixture(dialect);
    auth = basic('hooks@example.com', PASSWORD);
    const { account } = await fixture.app.context.accounts.create('other@example.com', PASSWORD);
    other = basic('other@example.com', PASSWORD);
    // The callback URLs are never called: no worker runs in this suite.
    appId = (await fixture.createApp('http://127.0.0.1:9/hook')).id;
    messages = [];
    for (let i = 0; i < 5; i++) messages.push(await fixture.message());
    otherAppId = (await fixture.app.context.apps.save(account.id, { name: 'theirs', callbackurl: 'http://127.0.0.1:9/x' })).id;
    ids = (await fixture.deliveries()).map((d) => d.id);
    // States as a worker leaves them: delivered, failed, retrying, and two fresh.
    const now = Date.now();
    const set = (id: number, fields: object) => fixture.db.updateTable('deliveries').set(fields).where('id', '=', id).execute();
    await set(ids[0]!, { status: 'delivered', attempts: 2, last_status_code: 200, delivered_at: now - 1000, next_attempt_at: now - 1000 });
    await set(ids[1]!, { status: 'failed', attempts: 8, last_status_code: 500, last_error: 'HTTP 500', next_attempt_at: now - 500 });
    await set(ids[2]!, { attempts: 1, last_error: 'timeout after 5000 ms', next_attempt_at: now + 60_000 });
  });
  afterAll(() => fixture.close());

  const call = (method: 'GET' | 'POST', url: string, authorization?: string) =>
    fixture.app.server.inject({ method, url, headers: authorization ? { authorization } : {} });

  it('answers 401 without credentials', async () => {
    expect((await call('GET', `/iot/developers/apps/${appId}/deliveries.json`)).statusCode).toBe(401);
    expect((await call('POST', `/iot/developers/apps/${appId}/deliveries/${ids[1]}/retry.json`)).statusCode).toBe(401);
    expect((await call('GET', `/iot/developers/apps/${appId}/deliveries.json`, basic('hooks@example.com', 'Wrong123'))).statusCode).toBe(401);
  });

  it("answers 404 for another account's app, an unknown app and a delivery of another app", async () => {
    for (const [method, url, who] of [
      ['GET', `/iot/developers/apps/${appId}/deliveries.json`, other],
      ['POST', `/iot/developers/apps/${appId}/deliveries/${ids[1]}/retry.json`, other],
      ['GET', '/iot/developers/apps/999999/deliveries.json', auth],
      ['POST', `/iot/developers/apps/999999/deliveries/${ids[1]}/retry.json`, auth],
      ['POST', `/iot/developers/apps/${appId}/deliveries/999999/retry.json`, auth],
      ['POST', `/iot/developers/apps/${otherAppId}/deliveries/${ids[1]}/retry.json`, other],
    ] as const) {
      const response = await call(method, url, who);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
  });

  it('lists the deliveries newest first with exactly the documented keys', async () => {
    const response = await call('GET', `/iot/developers/apps/${appId}/deliveries.json`, auth);
    expect(response.statusCode).toBe(200);
    const list = response.json();
    expect(list.map((d: { id: number }) => d.id)).toEqual([...ids].reverse());
    for (const item of list) expect(Object.keys(item).sort()).toEqual([...KEYS].sort());
    const byId = (id: number) => list.find((d: { id: number }) => d.id === id);
    const rows = await fixture.deliveries();
    expect(byId(ids[0]!)).toEqual({
      id: ids[0],
      uuid: rows[0]!.uuid,
      message_id: messages[0]!.id,
      when: messages[0]!.when_ms,
      status: 'delivered',
      attempts: 2,
      last_status_code: 200,
      last_error: null,
      next_attempt: null,
      created: rows[0]!.created_at,
      delivered: rows[0]!.delivered_at,
      kind: 'message',
      alert_id: null,
    });
    expect(byId(ids[1]!)).toMatchObject({ status: 'failed', attempts: 8, last_status_code: 500, last_error: 'HTTP 500', next_attempt: null, delivered: null });
    expect(byId(ids[2]!)).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'timeout after 5000 ms', next_attempt: rows[2]!.next_attempt_at });
  });

  it('pages with limit and before, and filters by status', async () => {
    const first = (await call('GET', `/iot/developers/apps/${appId}/deliveries.json?limit=2`, auth)).json();
    expect(first.map((d: { id: number }) => d.id)).toEqual([ids[4], ids[3]]);
    const next = (await call('GET', `/iot/developers/apps/${appId}/deliveries.json?limit=2&before=${first[1].id}`, auth)).json();
    expect(next.map((d: { id: number }) => d.id)).toEqual([ids[2], ids[1]]);
    const pending = (await call('GET', `/iot/developers/apps/${appId}/deliveries.json?status=pending`, auth)).json();
    expect(pending.map((d: { id: number }) => d.id)).toEqual([ids[4], ids[3], ids[2]]);
    const failed = (await call('GET', `/iot/developers/apps/${appId}/deliveries.json?status=failed`, auth)).json();
    expect(failed.map((d: { id: number }) => d.id)).toEqual([ids[1]]);
    expect((await call('GET', `/iot/developers/apps/${otherAppId}/deliveries.json`, other)).json()).toEqual([]);
  });

  it.each([
    ['status=lost', /status/],
    ['limit=0', /limit/],
    ['limit=1001', /limit/],
    ['limit=ten', /limit/],
    ['before=abc', /before/],
  ])('answers 400 naming the parameter for %s', async (query, message) => {
    const response = await call('GET', `/iot/developers/apps/${appId}/deliveries.json?${query}`, auth);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(message);
  });

  it('re-queues a failed delivery from scratch, and answers 409 for one that is not failed', async () => {
    const before = Date.now();
    const response = await call('POST', `/iot/developers/apps/${appId}/deliveries/${ids[1]}/retry.json`, auth);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: ids[1], status: 'pending', attempts: 0, last_error: 'HTTP 500', delivered: null });
    expect(response.json().next_attempt).toBeGreaterThanOrEqual(before);
    expect(response.json().next_attempt).toBeLessThanOrEqual(Date.now());
    expect(await fixture.delivery(ids[1]!)).toMatchObject({ status: 'pending', attempts: 0, lease_owner: null });

    for (const id of [ids[1], ids[0], ids[2]]) {
      const refused = await call('POST', `/iot/developers/apps/${appId}/deliveries/${id}/retry.json`, auth);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ statusCode: 409, error: 'Conflict', message: expect.stringMatching(/only failed deliveries/) });
    }
  });
});
