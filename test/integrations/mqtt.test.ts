import { connectAsync } from 'mqtt';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import type { MqttBridge } from '../../src/integrations/mqtt/mqtt-bridge.js';

const BROKER = 'mqtt://127.0.0.1:1883';
const T0 = 1_714_567_890;

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(dialects)('MQTT integration against Mosquitto (%s)', (dialect) => {
  let app: TestApp;
  let proxy: TcpProxy;
  let bridge: MqttBridge;
  let watcher: MqttClient;
  let appId: number;
  const received: { topic: string; body: Record<string, unknown> }[] = [];
  let time = T0;
  beforeAll(async () => {
    proxy = await tcpProxy(1883);
    app = await startApp(dialect, { SNSR_MQTT_URL: `mqtt://127.0.0.1:${proxy.port}` });
    await importCatalog(app);
    await createDeveloper(app, 'alice@example.com');
    await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    await app.context.modules.register(2, [{ serial: 'BEEF', key: 'DEADBEEF' }]);
    const { id } = (await app.context.repositories.devices.bySerial('C0FE'))!;
    await app.context.repositories.devices.setFlags(id, { watched: true });
    appId = (await app.context.apps.save(1, { name: 'mqtt' })).id;
    await app.context.apps.attach(1, appId, ['C0FE']);
    watcher = await connectAsync(BROKER, { clientId: `snsr-test-${dialect}-${process.pid}` });
    await watcher.subscribeAsync(`snsr/apps/${appId}/modules/+/+`, { qos: 1 });
    watcher.on('message', (topic, payload) => received.push({ topic, body: JSON.parse(payload.toString()) }));
    bridge = app.context.startMqtt({ settleMs: 20, pollMs: 50 })!;
    await until(() => bridge.connected, 'the bridge to connect');
  });
  afterAll(async () => {
    await watcher?.endAsync();
    await app?.close();
    await proxy?.down();
  });

  const ups = () => received.filter((r) => r.topic.endsWith('/up'));

  it('publishes each message of an attached module, QoS 1, with the callback body, and alerts on .../alert', async () => {
    await uplink(app, 'C0FE', frames.batteryLow(1), ++time);
    await uplink(app, '0ACE', frames.batteryLow(1), ++time); // attached to no app
    await until(() => received.length >= 2, 'the message and its alert');
    const up = ups()[0]!;
    expect(up.topic).toBe(`snsr/apps/${appId}/modules/C0FE/up`);
    expect(up.body).toMatchObject({ module: 'C0FE', device: 'C0FE', app: appId, msg: { extra: { code: 'event_battery_low' } }, message: { type: 'event:batterylow' } });
    const alert = received.find((r) => r.topic.endsWith('/alert'))!;
    expect(alert.topic).toBe(`snsr/apps/${appId}/modules/C0FE/alert`);
    expect(alert.body).toMatchObject({ module: 'C0FE', device: 'C0FE', app: appId, alert: { kind: 'battery_low', module: 'C0FE' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received.every((r) => r.topic.includes('/modules/C0FE/'))).toBe(true);
  });

  it('loses nothing published while the broker is unreachable: all of it arrives once it is back', async () => {
    const before = ups().length;
    await proxy.down();
    await until(() => !bridge.connected, 'the bridge to notice');
    const frames3 = [frames.tempHigh(2), frames.tempOk(3), frames.batteryOk(4)];
    for (const frame of frames3) await uplink(app, 'C0FE', frame, ++time);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ups()).toHaveLength(before);
    await proxy.up();
    await until(() => ups().length >= before + 3, 'the three messages after the broker came back', 20_000);
    expect(ups().slice(before).map((r) => (r.body.message as { payload: string }).payload)).toEqual(frames3);
  });

  it('sets the bidir value from .../bidir/set (hex text or JSON), and counts malformed commands without crashing', async () => {
    const bidir = async () => (await app.context.repositories.devices.bySerial('C0FE'))!.bidirval;
    const rejected = async () => (await app.context.metrics.mqtt.get()).values.find((v) => v.labels.outcome === 'bidir_rejected')?.value ?? 0;
    await watcher.publishAsync(`snsr/apps/${appId}/modules/c0fe/bidir/set`, '0011223344556677', { qos: 1 });
    await until(async () => (await bidir()) === '0011223344556677', 'the hex bidir value');
    await watcher.publishAsync(`snsr/apps/${appId}/modules/C0FE/bidir/set`, '{"value": "aabbccddeeff0011"}', { qos: 1 });
    await until(async () => (await bidir()) === 'AABBCCDDEEFF0011', 'the JSON bidir value');

    const bad = ['zz', '{"value": 12}', '{not json', '00112233'];
    for (const payload of bad) await watcher.publishAsync(`snsr/apps/${appId}/modules/C0FE/bidir/set`, payload, { qos: 1 });
    // A module not attached to the app, another account's module: refused too.
    await watcher.publishAsync(`snsr/apps/${appId}/modules/0ACE/bidir/set`, '0011223344556677', { qos: 1 });
    await watcher.publishAsync(`snsr/apps/${appId}/modules/BEEF/bidir/set`, '0011223344556677', { qos: 1 });
    await until(async () => (await rejected()) >= bad.length + 2, 'the refused commands to be counted');
    expect(await bidir()).toBe('AABBCCDDEEFF0011');
    expect((await app.context.repositories.devices.bySerial('BEEF'))!.bidirval).toBeNull();
    expect((await app.context.repositories.devices.bySerial('0ACE'))!.bidirval).toBeNull();
    await uplink(app, 'C0FE', frames.tempOk(5), ++time);
    await until(() => ups().some((r) => (r.body.message as { payload: string }).payload === frames.tempOk(5)), 'publishing to go on');
  });
});
