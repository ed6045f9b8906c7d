import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { dialects } from '../../helpers/database.js';
import { SIMULATION_TYPES } from '../../../src/simulator/portal-frames.js';

/** What the portal's simulator posts every `frequency` seconds (spec/compatibility.md). */
const PORTAL_BODY = { url: 'http://localhost:8080', deviceserial: 'c0fe', longitude: -0.6564933, latitude: 44.7824736, type: 'LOCATION_CHANGING', frequency: 5, hits: 0 };

describe.each(dialects)('the portal simulator: POST /iot/developers/simulator.json (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: 'BEEF', key: 'DEADBEEF' }]);
  });
  afterAll(() => app.close());

  const simulate = (payload: object | undefined, auth = alice.auth, url = '/iot/developers/simulator.json') =>
    app.server.inject({ method: 'POST', url, headers: auth ? { authorization: auth } : {}, ...(payload && { payload }) });
  const uplinkMetrics = async () =>
    (await app.server.inject({ url: '/metrics' })).body.split('\n').filter((line) => line.startsWith('snsr_uplinks_total')).join('\n');

  it('answers 401 without credentials and 404 for a module the caller does not hold', async () => {
    expect((await simulate(PORTAL_BODY, '')).statusCode).toBe(401);
    const foreign = await simulate(PORTAL_BODY, bob.auth);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('module C0FE not found');
    expect((await simulate({ ...PORTAL_BODY, deviceserial: 'FFFF' })).statusCode).toBe(404);
    expect((await simulate({ ...PORTAL_BODY, deviceserial: '0ACE' })).statusCode).toBe(404);
  });

  it('answers 400 naming the problem: unknown or missing type, missing serial, bad coordinates', async () => {
    const cases: [object, RegExp][] = [
      [{ ...PORTAL_BODY, type: 'EARTHQUAKE' }, /^type must be one of RANDOM, BATTERY_LOW, .* got "EARTHQUAKE"$/],
      [{ deviceserial: 'C0FE' }, /^type is required/],
      [{ type: 'RANDOM' }, /^deviceserial is required/],
      [{ ...PORTAL_BODY, latitude: 'north' }, /^latitude must be a number of degrees/],
      [{ ...PORTAL_BODY, latitude: 91 }, /^latitude must be a number of degrees between -90 and 90/],
      [{ ...PORTAL_BODY, longitude: -181 }, /^longitude must be a number of degrees between -180 and 180/],
    ];
    for (const [body, message] of cases) {
      const response = await simulate(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().message).toMatch(message);
    }
    expect((await simulate(undefined)).statusCode).toBe(400);
  });

  it('runs the portal’s body through ingestion and answers the message, marked simulated, that history then shows', async () => {
    const before = await uplinkMetrics();
    const response = await simulate(PORTAL_BODY);
    expect(response.statusCode).toBe(200);
    const message = response.json();
    expect(message).toMatchObject({
      device: 'C0FE',
      type: 'data:geoloc',
      extra: { simulated: true, fix: true, latitude: expect.closeTo(44.78247, 4), longitude: expect.closeTo(-0.6565, 3) },
    });
    expect(message.when).toBeGreaterThan(Date.now() - 60_000);
    const token = (await app.server.inject({ url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
    const history = (await app.server.inject({ url: '/iot/devices/msgs/history.json?amount=1', headers: { 'x-snsr-device-key': token } })).json();
    expect(history).toEqual([message]);
    // Not network traffic: the uplink counters of /metrics did not move.
    expect(await uplinkMetrics()).toBe(before);
  });

  it('makes a message for every type, in UDM23 and UDM22 modules, without counting lost uplinks', async () => {
    for (const serial of ['C0FE', 'BEEF']) {
      for (const type of SIMULATION_TYPES) {
        const response = await simulate({ type: type.toLowerCase(), deviceserial: serial, latitude: '48.85', longitude: '2.35' });
        expect(response.statusCode, `${serial} ${type}: ${response.body}`).toBe(200);
        expect(response.json().extra.simulated, `${serial} ${type}`).toBe(true);
      }
      expect((await app.context.repositories.devices.bySerial(serial))?.losts).toBe(0);
    }
    const switched = (await simulate({ type: 'BUTTON_ON', deviceserial: 'C0FE' })).json();
    expect(switched).toMatchObject({ type: 'event:switchon', extra: { port: 'B', pin: 0, simulated: true } });
  });

  it('answers at the first portal’s /mcs/simulator.json too', async () => {
    const response = await simulate({ ...PORTAL_BODY, type: 'BATTERY_LOW' }, alice.auth, '/mcs/simulator.json');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ device: 'C0FE', type: 'event:batterylow', extra: { simulated: true, voltage_mv: 3000 } });
  });
});
