import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

describe.each(dialects)('from uplink to callback (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  afterEach(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  it('an uplink heard by two stations and replayed reaches each attached app once, decoded and signed', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect);
    const first = await fixture.createApp(receiver.url, 'first');
    const second = await fixture.createApp(`${receiver.url}?app=second`, 'second');
    fixture.app.context.startWorker({ pollMs: 20 });
    const uplink = (station: string, rssi: number) =>
      fixture.app.server.inject({
        method: 'POST',
        url: '/network/sigfox/uplink',
        headers: { authorization: 'Bearer network-token' },
        payload: { device: 'c0fe', time: 1_714_567_890, data: '00000046', seqNumber: 42, station, rssi, snr: 12.5 },
      });
    for (const [station, rssi] of [['1A2B', -121], ['3C4D', -110], ['1A2B', -121]] as const) {
      expect((await uplink(station, rssi)).statusCode).toBe(200);
    }
    const requests = await receiver.waitFor(2);
    await eventually(() => fixture.deliveries(), (ds) => ds.length === 2 && ds.every((d) => d.status === 'delivered'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(2);

    const byApp = new Map(requests.map((r) => [JSON.parse(r.body).app as number, r]));
    for (const [app, secret] of [[first.id, first.secret], [second.id, second.secret]] as const) {
      const request = byApp.get(app)!;
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-snsr-signature']))!;
      expect(createHmac('sha256', secret).update(`${t}.${request.body}`).digest('hex')).toBe(v1);
      const body = JSON.parse(request.body);
      expect(body).toMatchObject({
        module: 'C0FE',
        device: 'C0FE',
        app,
        msg: { extra: { entry_id: 0, frame_type: 'srv_frm_event' } },
        message: { when: expect.any(Number), device: 'C0FE', station: '1A2B', extra: { message: '00000046', time: 1_714_567_890 }, payload: '00000046' },
      });
      expect(body.message.when).toBeGreaterThan(1_714_567_890_000);
      expect(body.message.type).toMatch(/^event:/);
      expect(body.msg.extra.code).toMatch(/^event_/);
    }
    expect(byApp.get(second.id)!.path).toBe('/hook?app=second');
  });
});
