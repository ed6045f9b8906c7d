import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { frames, uplink } from '../../helpers/uplinks.js';

const T0 = 1_714_567_890;

describe.each(dialects)('alerts of watched devices (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: { authorization: alice.auth }, payload: [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }] });
    await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: { authorization: bob.auth }, payload: [{ serial: 'BEEF', key: 'DEADBEEF' }] });
  });
  afterAll(() => app.close());

  const get = (url: string, auth = alice.auth) => app.server.inject({ method: 'GET', url, headers: { authorization: auth } });
  const post = (url: string, auth = alice.auth) => app.server.inject({ method: 'POST', url, headers: { authorization: auth } });
  const device = async (serial: string) => (await app.context.repositories.devices.bySerial(serial))!;
  /** A message's `when`: snsr's reception time, which alerts take from the message that raised or ended them. */
  const whenOf = async (messageId: number) =>
    (await app.context.storage.db.selectFrom('messages').select('when_ms').where('id', '=', messageId).executeTakeFirstOrThrow()).when_ms;
  const newestWhen = async (serial: string) =>
    (await app.context.storage.db.selectFrom('messages').select('when_ms').where('module_serial', '=', serial).orderBy('when_ms', 'desc').limit(1).executeTakeFirstOrThrow()).when_ms;
  const watch = async (serial: string) => {
    const { id } = await device(serial);
    expect((await post(`/iot/devices/watch.json?id=${id}&sn=${serial.split('/')[0]}&value=true`)).statusCode).toBe(200);
  };

  it('answers 401 without credentials and 404 for what the caller does not own', async () => {
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/alerts.json' })).statusCode).toBe(401);
    expect((await app.server.inject({ method: 'POST', url: '/iot/developers/alerts/ack.json?sn=C0FE' })).statusCode).toBe(401);
    const other = await get('/iot/developers/alerts.json?sn=BEEF');
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'module BEEF not found' });
    expect((await post('/iot/developers/alerts/ack.json?sn=BEEF')).statusCode).toBe(404);
    expect((await post('/iot/developers/alerts/ack.json?id=999999')).json()).toMatchObject({ statusCode: 404, message: 'alert 999999 not found' });
  });

  it('answers 400 naming a bad parameter', async () => {
    expect((await get('/iot/developers/alerts.json?limit=0')).statusCode).toBe(400);
    const ack = await post('/iot/developers/alerts/ack.json');
    expect(ack.statusCode).toBe(400);
    expect(ack.json().message).toMatch(/sn .* or id/);
    expect((await post('/iot/developers/alerts/ack.json?id=abc')).json()).toMatchObject({ statusCode: 400, message: expect.stringContaining('id') });
  });

  it('raises nothing for a device nobody watches', async () => {
    await uplink(app, '0ACE', frames.batteryLow(1), T0);
    expect((await device('0ACE')).alerts).toBe(0);
    expect((await get('/iot/developers/alerts.json')).json()).toEqual([]);
  });

  it('raises an alert from an alarm frame, once per open condition, ends it with the OK frame, and acknowledges it', async () => {
    await watch('C0FE');
    await uplink(app, 'C0FE', frames.batteryLow(1), T0 + 10);
    await uplink(app, 'C0FE', frames.batteryLow(2), T0 + 20); // still low: the same alert
    await uplink(app, 'C0FE', frames.tempHigh(3), T0 + 30);
    expect(await device('C0FE')).toMatchObject({ alerts: 2, alertsAck: 0, battery: 'OFF', temp: 'HIGH' });

    const listed = (await get('/iot/developers/alerts.json')).json();
    expect(listed).toMatchObject([
      { module: 'C0FE', device: 'C0FE', kind: 'temperature_high', ended: null, acked: null },
      { module: 'C0FE', device: 'C0FE', kind: 'battery_low', message: 'battery low (2.85 V)', ended: null },
    ]);
    expect(listed[1].message_id).toEqual(expect.any(Number));
    for (const alert of listed) expect(alert.when).toBe(await whenOf(alert.message_id));

    await uplink(app, 'C0FE', frames.batteryOk(4), T0 + 40);
    const [temperature, battery] = (await get('/iot/developers/alerts.json?sn=c0fe')).json();
    expect(battery).toMatchObject({ kind: 'battery_low', ended: await newestWhen('C0FE'), end_message: 'battery OK (3.30 V)' });
    expect(temperature.ended).toBeNull();
    expect((await get('/iot/developers/alerts.json?open=true')).json().map((a: { kind: string }) => a.kind)).toEqual(['temperature_high']);

    const one = await post(`/iot/developers/alerts/ack.json?id=${battery.id}`);
    expect(one.json()).toEqual({ device: 'C0FE', acknowledged: 1, alerts: 2, alerts_ack: 1 });
    const all = await post('/iot/developers/alerts/ack.json?sn=C0FE');
    expect(all.json()).toEqual({ device: 'C0FE', acknowledged: 1, alerts: 2, alerts_ack: 2 });
    expect((await get(`/iot/developers/device.json?sn=C0FE`)).json()).toMatchObject({ alerts: 2, alerts_ack: 2 });

    // Ended, so a new low battery is a new alert.
    await uplink(app, 'C0FE', frames.batteryLow(5), T0 + 50);
    expect(await device('C0FE')).toMatchObject({ alerts: 3, alertsAck: 2 });
  });

  it("raises on a watched module's children, keeps them apart, and never shows them to another account", async () => {
    await uplink(app, 'C0FE', frames.tempHigh(6, 2), T0 + 60);
    const [child] = (await get('/iot/developers/alerts.json?limit=1')).json();
    expect(child).toMatchObject({ module: 'C0FE', device: 'C0FE/2', kind: 'temperature_high' });
    expect((await device('C0FE/2')).alerts).toBe(1);
    expect((await get('/iot/developers/alerts.json', bob.auth)).json()).toEqual([]);
    expect((await post(`/iot/developers/alerts/ack.json?id=${child.id}`, bob.auth)).statusCode).toBe(404);
    expect((await post('/iot/developers/alerts/ack.json?sn=C0FE/2', bob.auth)).statusCode).toBe(404);
    expect((await post('/iot/developers/alerts/ack.json?sn=c0fe/2')).json()).toMatchObject({ device: 'C0FE/2', acknowledged: 1, alerts_ack: 1 });
  });

  it("shows each alert with its device's name as it is now, null while unnamed, in the list and the overview", async () => {
    const named = (sn: string, name: string) =>
      app.server.inject({ method: 'POST', url: `/iot/developers/labels.json?sn=${sn}`, headers: { authorization: alice.auth }, payload: { name } });
    const [before] = (await get('/iot/developers/alerts.json?limit=1')).json();
    expect(before).toMatchObject({ device: 'C0FE/2', name: null });
    expect((await named('C0FE/2', 'Freezer probe')).statusCode).toBe(200);
    expect((await named('C0FE', 'Cellar pump')).statusCode).toBe(200);
    const names = (await get('/iot/developers/alerts.json?limit=100')).json().map((a: { device: string; name: string | null }) => [a.device, a.name]);
    expect(new Set(names.map(JSON.stringify))).toEqual(new Set([['C0FE/2', 'Freezer probe'], ['C0FE', 'Cellar pump']].map((pair) => JSON.stringify(pair))));
    const overview = (await get('/iot/developers/overview.json')).json();
    expect(overview.alerts.latest[0]).toMatchObject({ device: 'C0FE/2', name: 'Freezer probe' });
  });

  it('pages with before and limit', async () => {
    const all = (await get('/iot/developers/alerts.json?limit=100')).json() as { id: number }[];
    expect(all.length).toBeGreaterThanOrEqual(4); // battery (ended), temperature, battery again, the child's
    const page = (await get(`/iot/developers/alerts.json?limit=2&before=${all[1]!.id}`)).json() as { id: number }[];
    expect(page.map((a) => a.id)).toEqual([all[2]!.id, all[3]!.id]);
  });
});
