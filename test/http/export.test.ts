import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { keepAlive, seedUplink, tempLow } from '../helpers/seed.js';
import { CSV_HEADER } from '../../src/lifecycle/message-export.js';

const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);
const MINUTE = 60_000;
const HEADER = 'time,serial,type,temperature (°C),voltage (mV),keep-alive interval (h),latitude (°),longitude (°),altitude (m),satellites,signal (dBm),station,frame';

describe.each(dialects)('message export: CSV and NDJSON downloads (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  let auth: string;
  let appId: number;
  let childId: number;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const developer = await createDeveloper(app);
    auth = developer.auth;
    const account = (await app.context.repositories.accounts.byEmail(developer.email))!;
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: 'BEEF', key: 'DEADBEEF' }]);
    appId = (await app.context.apps.save(account.id, { name: 'export' })).id;
    await app.context.apps.attach(account.id, appId, ['C0FE', 'BEEF']);
    // Registered first: a new registration starts without the module's earlier data.
    // C0FE: a keep-alive a minute, every third from its child 1; BEEF: two keep-alives.
    for (let i = 0; i < 6; i++) {
      const seeded = await seedUplink(app, { module: 'C0FE', at: T0 + i * MINUTE, frame: i % 3 === 2 ? tempLow(i, 1) : keepAlive(i), seq: i, stations: [{ tap: '0A1B', rssi: -125.5, snr: 14 }] });
      if (i % 3 === 2) childId = seeded.deviceId;
    }
    for (let i = 0; i < 2; i++) await seedUplink(app, { module: 'BEEF', at: T0 + i * MINUTE + 30_000, frame: '1300011C', protocol: 'UDM22', seq: i });
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const device = (url: string) => app.server.inject({ method: 'GET', url, headers: { 'x-snsr-device-key': token } });
  const developer = (url: string, as = auth) => app.server.inject({ method: 'GET', url, headers: { authorization: as } });
  const lines = (body: string) => body.split('\r\n').filter((line) => line !== '');

  it('answers 401 without a token or credentials, 404 for what the caller does not own', async () => {
    expect((await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/export.csv' })).statusCode).toBe(401);
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/modules/C0FE/messages.csv' })).statusCode).toBe(401);
    const stranger = await createDeveloper(app, 'stranger@example.com');
    const notMine = await developer('/iot/developers/modules/C0FE/messages.csv', stranger.auth);
    expect(notMine.statusCode).toBe(404);
    expect(notMine.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await developer(`/iot/developers/apps/${appId}/messages.ndjson`, stranger.auth)).statusCode).toBe(404);
    expect((await developer('/iot/developers/modules/0ACE/messages.csv')).statusCode).toBe(404);
  });

  it('refuses a range whose from is after its to, and bounds that are not times, naming them', async () => {
    const reversed = await device('/iot/devices/msgs/export.csv?from=2026-11-02&to=2026-11-01');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().message).toMatch(/from \(2026-11-02T00:00:00.000Z\) must not be after to \(2026-11-01T00:00:00.000Z\)/);
    const bad = await developer('/iot/developers/modules/C0FE/messages.ndjson?from=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(bad.json().message).toMatch(/^from must be an ISO 8601 date/);
    expect((await developer('/iot/developers/modules/C0FE/messages.csv?to=2026-13-45')).statusCode).toBe(400);
  });

  it('sends the module’s messages as CSV, oldest first, units in the header, as a download', async () => {
    const response = await device('/iot/devices/msgs/export.csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="C0FE-messages.csv"');
    const rows = lines(response.body);
    expect(rows[0]).toBe(HEADER);
    expect(CSV_HEADER.join(',')).toBe(HEADER);
    expect(rows).toHaveLength(7);
    expect(rows[1]).toBe(`2026-11-01T08:00:00.000Z,C0FE,keepalive:voltagetemp,21.5,3300,24,,,,,-125.5,0A1B,${keepAlive(0)}`);
    expect(rows[3]).toBe(`2026-11-01T08:02:00.000Z,C0FE/1,event:templow,-5,,,,,,,-125.5,0A1B,${tempLow(2, 1)}`);
    expect(rows.slice(1).map((row) => row.slice(0, 24))).toEqual([0, 1, 2, 3, 4, 5].map((i) => new Date(T0 + i * MINUTE).toISOString()));
  });

  it('takes from as inclusive and to as exclusive, in ISO dates or epoch ms or s; id narrows to a device', async () => {
    const ms = lines((await device(`/iot/devices/msgs/export.csv?from=${T0 + MINUTE}&to=${T0 + 4 * MINUTE}`)).body);
    expect(ms.slice(1).map((row) => row.slice(0, 24))).toEqual([1, 2, 3].map((i) => new Date(T0 + i * MINUTE).toISOString()));
    const seconds = lines((await device(`/iot/devices/msgs/export.csv?from=${(T0 + MINUTE) / 1000}&to=${(T0 + 4 * MINUTE) / 1000}`)).body);
    expect(seconds).toEqual(ms);
    const iso = lines((await device('/iot/devices/msgs/export.csv?from=2026-11-01T08:01:00Z&to=2026-11-01T08:04:00Z')).body);
    expect(iso).toEqual(ms);
    const child = await device(`/iot/devices/msgs/export.csv?id=${childId}`);
    expect(child.headers['content-disposition']).toBe('attachment; filename="C0FE-1-messages.csv"');
    expect(lines(child.body).slice(1).map((row) => row.split(',')[1])).toEqual(['C0FE/1', 'C0FE/1']);
    expect(lines((await device('/iot/devices/msgs/export.csv?from=2027-01-01')).body)).toEqual([HEADER]);
  });

  it('sends NDJSON: one object per line with the measurements under their unit-named keys', async () => {
    const response = await developer('/iot/developers/modules/C0FE/messages.ndjson?to=2026-11-01T08:03:00Z');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="C0FE-messages.ndjson"');
    const objects = response.body.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(objects).toHaveLength(3);
    expect(objects[0]).toEqual({
      time: '2026-11-01T08:00:00.000Z', when: T0, serial: 'C0FE', type: 'keepalive:voltagetemp',
      temperature_c: 21.5, voltage_mv: 3300, interval_h: 24, signal_dbm: -125.5, station: '0A1B', frame: keepAlive(0),
    });
    expect(objects[2]).toMatchObject({ serial: 'C0FE/1', type: 'event:templow', temperature_c: -5 });
  });

  it('exports every module of an app, module by module in serial order', async () => {
    const response = await developer(`/iot/developers/apps/${appId}/messages.csv`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-disposition']).toBe(`attachment; filename="app-${appId}-messages.csv"`);
    const serials = lines(response.body).slice(1).map((row) => row.split(',')[1]);
    expect(serials).toEqual(['BEEF', 'BEEF', 'C0FE', 'C0FE', 'C0FE/1', 'C0FE', 'C0FE', 'C0FE/1']);
    expect((await developer('/iot/developers/apps/999999/messages.csv')).statusCode).toBe(404);
  });

  it('accepts developer credentials on the device route with sn naming the module', async () => {
    const response = await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/export.ndjson?sn=BEEF', headers: { authorization: auth } });
    expect(response.statusCode).toBe(200);
    expect(response.body.trimEnd().split('\n')).toHaveLength(2);
  });
});
