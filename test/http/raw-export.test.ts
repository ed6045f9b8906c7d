import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { keepAlive, seedUplink, tempLow } from '../helpers/seed.js';
import { EXPORT_PAGE } from '../../src/lifecycle/message-export.js';
import { RAW_CSV_HEADER } from '../../src/lifecycle/raw-export.js';

const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);
const MINUTE = 60_000;
const HEADER = 'time,serial,seq,data,stations (station:rssi dBm:snr dB;…)';
/** More than two pages for the big module, in runs of uplinks sharing a network second across page boundaries. */
const BIG = EXPORT_PAGE * 2 + 300;

describe.each(dialects)('raw export: uplinks with their station reports as CSV and NDJSON (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  let auth: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const developer = await createDeveloper(app);
    auth = developer.auth;
    const account = (await app.context.repositories.accounts.byEmail(developer.email))!;
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: 'BEEF', key: 'DEADBEEF' }]);
    // C0FE: an uplink a minute; heard by two stations, or (every third) one, whose SNR is unknown.
    for (let i = 0; i < 4; i++) {
      const stations = i % 3 === 2 ? [{ tap: '3C4D', rssi: -130, snr: 0 }] : [{ tap: '0A1B', rssi: -125.5, snr: 14 }, { tap: '1B2C', rssi: -110, snr: 9.5 }];
      await seedUplink(app, { module: 'C0FE', at: T0 + i * MINUTE, frame: i % 3 === 2 ? tempLow(i, 1) : keepAlive(i), seq: i, stations });
    }
    await app.context.storage.db.updateTable('rinfos').set({ snr: null }).where('tap', '=', '3C4D').execute();
    // BEEF: many uplinks, seven per network second, one station each.
    const db = app.context.storage.db;
    for (let start = 0; start < BIG; start += 500) {
      const rows = Array.from({ length: Math.min(500, BIG - start) }, (_, k) => {
        const i = start + k;
        return { module_serial: 'BEEF', seq_number: i, time_s: T0 / 1000 + Math.floor(i / 7), data: i.toString(16).padStart(8, '0').toUpperCase(), snr: 10, avg_snr: 10, lat: null, lng: null, received_at: T0 + i };
      });
      const ids = await db.insertInto('raw_messages').values(rows).returning('id').execute();
      await db.insertInto('rinfos').values(ids.map(({ id }) => ({ raw_id: id, tap: '0A1B', rssi: -120, snr: 10 }))).execute();
    }
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const device = (url: string) => app.server.inject({ method: 'GET', url, headers: { 'x-snsr-device-key': token } });
  const developer = (url: string, as = auth) => app.server.inject({ method: 'GET', url, headers: { authorization: as } });
  const lines = (body: string) => body.split('\r\n').filter((line) => line !== '');

  it('answers 401 without a token or credentials, 404 for what the caller does not own', async () => {
    expect((await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/sfx/export.csv' })).statusCode).toBe(401);
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/modules/C0FE/raw.ndjson' })).statusCode).toBe(401);
    const stranger = await createDeveloper(app, 'stranger@example.com');
    const notMine = await developer('/iot/developers/modules/C0FE/raw.csv', stranger.auth);
    expect(notMine.statusCode).toBe(404);
    expect(notMine.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await developer('/iot/developers/modules/0ACE/raw.csv')).statusCode).toBe(404);
    expect((await device('/iot/devices/msgs/sfx/export.csv?sn=C0FE/9')).statusCode).toBe(404);
  });

  it('refuses a range whose from is after its to, and bounds that are not times, naming them', async () => {
    const reversed = await device('/iot/devices/msgs/sfx/export.ndjson?from=2026-11-02&to=2026-11-01');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().message).toMatch(/from \(2026-11-02T00:00:00.000Z\) must not be after to \(2026-11-01T00:00:00.000Z\)/);
    const bad = await developer('/iot/developers/modules/C0FE/raw.csv?to=soon');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^to must be an ISO 8601 date/);
  });

  it('sends CSV, one row per uplink by network time, the stations joined in the last column', async () => {
    const response = await device('/iot/devices/msgs/sfx/export.csv');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="C0FE-raw.csv"');
    expect(RAW_CSV_HEADER.join(',')).toBe(HEADER);
    expect(lines(response.body)).toEqual([
      HEADER,
      `2026-11-01T08:00:00.000Z,C0FE,0,${keepAlive(0)},0A1B:-125.5:14;1B2C:-110:9.5`,
      `2026-11-01T08:01:00.000Z,C0FE,1,${keepAlive(1)},0A1B:-125.5:14;1B2C:-110:9.5`,
      `2026-11-01T08:02:00.000Z,C0FE,2,${tempLow(2, 1)},3C4D:-130:`,
      `2026-11-01T08:03:00.000Z,C0FE,3,${keepAlive(3)},0A1B:-125.5:14;1B2C:-110:9.5`,
    ]);
  });

  it('sends NDJSON with an array of stations; from is included and to excluded, in any accepted form', async () => {
    const response = await developer(`/iot/developers/modules/c0fe/raw.ndjson?from=${(T0 + MINUTE) / 1000}&to=2026-11-01T08:03:00Z`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="C0FE-raw.ndjson"');
    expect(response.body.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([
      { time: '2026-11-01T08:01:00.000Z', serial: 'C0FE', seq: 1, data: keepAlive(1), stations: [{ station: '0A1B', rssi: -125.5, snr: 14 }, { station: '1B2C', rssi: -110, snr: 9.5 }] },
      { time: '2026-11-01T08:02:00.000Z', serial: 'C0FE', seq: 2, data: tempLow(2, 1), stations: [{ station: '3C4D', rssi: -130, snr: null }] },
    ]);
    const ms = await device(`/iot/devices/msgs/sfx/export.ndjson?from=${T0 + MINUTE}&to=${T0 + 3 * MINUTE}`);
    expect(ms.body).toBe(response.body);
    expect(lines((await device('/iot/devices/msgs/sfx/export.csv?from=2027-01-01')).body)).toEqual([HEADER]);
  });

  it('exports a range of several pages whole, each uplink once, in network time order across ties', async () => {
    const response = await developer('/iot/developers/modules/BEEF/raw.csv');
    expect(response.statusCode).toBe(200);
    const rows = lines(response.body).slice(1);
    expect(rows).toHaveLength(BIG);
    expect(rows.map((row) => Number(row.split(',')[2]))).toEqual(Array.from({ length: BIG }, (_, i) => i));
    expect(rows[BIG - 1]).toBe(`${new Date(T0 + Math.floor((BIG - 1) / 7) * 1000).toISOString()},BEEF,${BIG - 1},${(BIG - 1).toString(16).padStart(8, '0').toUpperCase()},0A1B:-120:10`);
    // The same with the owner's credentials on the device route, sn naming the module.
    const viaDevice = await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/sfx/export.csv?sn=beef', headers: { authorization: auth } });
    expect(viaDevice.body).toBe(response.body);
  });

  it("exports every module of an app, module by module in serial order; another's app is a 404, a reversed range a 400", async () => {
    const account = (await app.context.repositories.accounts.byEmail('dev@example.com'))!;
    const appId = (await app.context.apps.save(account.id, { name: 'raw export' })).id;
    await app.context.apps.attach(account.id, appId, ['C0FE', 'BEEF']);
    const response = await developer(`/iot/developers/apps/${appId}/raw.csv`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="app-${appId}-raw.csv"`);
    const rows = lines(response.body);
    expect(rows[0]).toBe(HEADER);
    expect(rows.slice(1).map((row) => row.split(',')[1])).toEqual([...Array<string>(BIG).fill('BEEF'), 'C0FE', 'C0FE', 'C0FE', 'C0FE']);
    const module = lines((await developer('/iot/developers/modules/C0FE/raw.csv')).body).slice(1);
    expect(rows.slice(1 + BIG)).toEqual(module);
    const ranged = await developer(`/iot/developers/apps/${appId}/raw.ndjson?from=2026-11-01T08:01:00Z&to=2026-11-01T08:02:00Z`);
    expect(ranged.headers['content-disposition']).toBe(`attachment; filename="app-${appId}-raw.ndjson"`);
    // BEEF sends seven uplinks a network second: 420 in that minute, then C0FE's one.
    const objects = ranged.body.trimEnd().split('\n').map((line) => JSON.parse(line) as { serial: string; seq: number });
    expect(objects.map((o) => `${o.serial}:${o.seq}`)).toEqual([...Array.from({ length: 420 }, (_, k) => `BEEF:${420 + k}`), 'C0FE:1']);
    const reversed = await developer(`/iot/developers/apps/${appId}/raw.csv?from=2026-11-02&to=2026-11-01`);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().message).toMatch(/must not be after to/);
    const stranger = await createDeveloper(app, 'raw-stranger@example.com');
    expect((await developer(`/iot/developers/apps/${appId}/raw.csv`, stranger.auth)).statusCode).toBe(404);
    expect((await developer('/iot/developers/apps/999999/raw.csv')).statusCode).toBe(404);
  });
});
