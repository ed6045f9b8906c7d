import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { presentAlert } from '../../src/wire/alert.js';
import { dialects } from '../helpers/database.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

const signed = (secret: string, header: unknown, body: string) => {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header))!;
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex') === v1;
};

describe.each(dialects)('alert callbacks (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  afterEach(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  const watch = async () => {
    const { id } = (await fixture.app.context.repositories.devices.bySerial('C0FE'))!;
    await fixture.app.context.repositories.devices.setFlags(id, { watched: true });
  };
  const get = (url: string) => fixture.app.server.inject({ method: 'GET', url, headers: { authorization: `Basic ${Buffer.from('hooks@example.com:Secret123').toString('base64')}` } });
  const post = (url: string) => fixture.app.server.inject({ method: 'POST', url, headers: { authorization: `Basic ${Buffer.from('hooks@example.com:Secret123').toString('base64')}` } });

  it('a frame raising an alert sends a signed callback of type alert, retried after a failure; message callbacks keep their body', async () => {
    // The alert's first attempt fails; everything else is accepted.
    receiver = await startReceiver((_n, request) => ({ status: JSON.parse(request.body).type === 'alert' && receiver.received.filter((r) => r.body.includes('"type":"alert"')).length === 1 ? 500 : 200 }));
    fixture = await deliveryFixture(dialect);
    const hooked = await fixture.createApp(receiver.url);
    await watch();
    fixture.app.context.startWorker({ pollMs: 20 });
    await uplink(fixture.app, 'C0FE', frames.batteryLow(1), Math.floor(Date.now() / 1000));

    // The message's callback, and the alert's twice (a 500, then accepted).
    const requests = await receiver.waitFor(3, 20_000);
    const alertRequests = requests.filter((r) => JSON.parse(r.body).type === 'alert');
    const messageRequests = requests.filter((r) => JSON.parse(r.body).type === undefined);
    expect(alertRequests).toHaveLength(2);
    expect(messageRequests).toHaveLength(1);
    expect(Object.keys(JSON.parse(messageRequests[0]!.body))).toEqual(['msg', 'message', 'module', 'device', 'app']);

    const [alert] = await fixture.app.context.alerts.list(fixture.accountId);
    expect(alert).toMatchObject({ kind: 'battery_low', deviceSerial: 'C0FE' });
    for (const request of alertRequests) {
      expect(signed(hooked.secret, request.headers['x-snsr-signature'], request.body)).toBe(true);
      expect(JSON.parse(request.body)).toEqual({ type: 'alert', alert: presentAlert(alert!), module: 'C0FE', device: 'C0FE', app: hooked.id });
    }
    // One delivery: the same id on the retry.
    expect(alertRequests[1]!.headers['x-snsr-delivery']).toBe(alertRequests[0]!.headers['x-snsr-delivery']);

    // The delivery log tells the two kinds apart; webhook health counts both.
    const rows = await eventually(() => fixture.deliveries(), (ds) => ds.length === 2 && ds.every((d) => d.status === 'delivered'));
    const log = (await get(`/iot/developers/apps/${hooked.id}/deliveries.json`)).json() as Record<string, unknown>[];
    const alertRow = rows.find((row) => row.alert_id !== null)!;
    expect(log.find((d) => d.id === alertRow.id)).toMatchObject({
      kind: 'alert',
      alert_id: alert!.id,
      message_id: null,
      uuid: alertRequests[0]!.headers['x-snsr-delivery'],
      when: alert!.raised.getTime(),
      status: 'delivered',
      attempts: 2,
      last_status_code: 200,
    });
    expect(log.find((d) => d.id !== alertRow.id)).toMatchObject({ kind: 'message', alert_id: null, message_id: expect.any(Number) });
    expect((await get(`/iot/developers/apps/health.json?id=${hooked.id}`)).json()).toMatchObject({ delivered: 2, failed: 0, success_rate: 1 });

    // A second battery-low while the alert is open raises nothing, so sends nothing more.
    await uplink(fixture.app, 'C0FE', frames.batteryLow(2), Math.floor(Date.now() / 1000) + 60);
    await receiver.waitFor(4, 20_000);
    await eventually(() => fixture.deliveries(), (ds) => ds.length === 3 && ds.every((d) => d.status === 'delivered'));
    expect(receiver.received.filter((r) => JSON.parse(r.body).type === 'alert')).toHaveLength(2);
  });

  it('alert deliveries that failed for good are retried in bulk, and the watchdog queues its alerts too', async () => {
    let accept = false;
    receiver = await startReceiver(() => ({ status: accept ? 200 : 503 }));
    fixture = await deliveryFixture(dialect, { SNSR_DELIVERY_MAX_ATTEMPTS: '1' });
    const hooked = await fixture.createApp(receiver.url);
    await watch();
    await fixture.app.context.alerts.setPeriod(fixture.accountId, { sn: 'C0FE' }, 3600);
    await uplink(fixture.app, 'C0FE', frames.keepAlive(1, 0, 0), Math.floor(Date.now() / 1000));
    // Two hours of silence, as the watchdog's clock sees it: lost contact, queued in its transaction.
    const watchdog = fixture.app.context.startWatchdog({ now: () => Date.now() + 2 * 3_600_000, owner: 'test' });
    const raised = await eventually(() => fixture.app.context.alerts.list(fixture.accountId), (alerts) => alerts.length === 1);
    expect(raised[0]).toMatchObject({ kind: 'lost_contact' });
    await watchdog.stop();
    const queued = await eventually(() => fixture.deliveries(), (ds) => ds.some((d) => d.alert_id === raised[0]!.id));
    expect(queued.filter((d) => d.alert_id !== null)).toHaveLength(1);

    fixture.app.context.startWorker({ pollMs: 20 });
    await eventually(() => fixture.deliveries(), (ds) => ds.length === 2 && ds.every((d) => d.status === 'failed'));
    accept = true;
    expect((await post(`/iot/developers/apps/${hooked.id}/deliveries/retry.json?all_failed=true`)).json()).toEqual({ requeued: 2 });
    await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'));
    const bodies = receiver.received.filter((r) => r.body.includes('"type":"alert"')).map((r) => JSON.parse(r.body));
    expect(bodies.at(-1)).toMatchObject({ type: 'alert', alert: { id: raised[0]!.id, kind: 'lost_contact' }, module: 'C0FE', app: hooked.id });
  });
});
