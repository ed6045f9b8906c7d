import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { keepAlive, tempLow } from '../../helpers/seed.js';

const T = 1_700_000_000;

/** A device session against data the real ingestion stored: what the README shows with curl. */
describe.each(dialects)('a device session over ingested uplinks (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
  });
  afterAll(() => app.close());

  const uplink = (seqNumber: number, data: string, station: string, extra: Record<string, unknown> = {}) =>
    app.server.inject({
      method: 'POST',
      url: '/network/sigfox/uplink',
      headers: { authorization: 'Bearer network-token' },
      payload: { device: 'C0FE', time: T + seqNumber * 600, data, seqNumber, station, rssi: -120, snr: 10, avgSnr: 9, lat: 48, lng: 2, duplicate: false, ack: false, ...extra },
    });

  it('reads back what the network sent, sets a downlink, and clears', async () => {
    expect((await uplink(1, keepAlive(1), '1B2C')).statusCode).toBe(200);
    expect((await uplink(1, keepAlive(1), '3D4E', { duplicate: true, rssi: -110, snr: 20 })).statusCode).toBe(200);
    expect((await uplink(2, tempLow(2, 1), '1B2C')).statusCode).toBe(200);

    const token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=c0fe&key=1a2b3c4d' })).body;
    const get = (url: string) => app.server.inject({ method: 'GET', url, headers: { 'X-Snsr-Device-Key': token } });
    const post = (url: string) => app.server.inject({ method: 'POST', url, headers: { 'X-Snsr-Device-Key': token } });

    const history = (await get('/iot/devices/msgs/history.json')).json();
    expect(history.map((m: { when: number; extra: { time: number }; device: string; type: string }) => [m.extra.time, m.device, m.type])).toEqual([
      [T + 1200, 'C0FE/1', 'event:templow'],
      [T + 600, 'C0FE', 'keepalive:voltagetemp'],
    ]);
    expect(history[0].when).toBeGreaterThan(history[1].when);
    expect(history[1]).toMatchObject({ station: '1B2C', lvl: '-120', extra: { message: keepAlive(1), voltage_mv: 3300 }, contrib: { network: 'ON' } });
    expect((await get(`/iot/devices/msgs/recents.json?after=${history[1].when}`)).json()).toEqual([history[0]]);
    expect((await get(`/iot/devices/msgs/history.json?until=${history[0].when}`)).json()).toEqual([history[1]]);

    const raw = (await get('/iot/devices/msgs/sfx/history.json?limit=5')).json();
    expect(raw).toHaveLength(2);
    expect(raw[1]).toMatchObject({ device: 'C0FE', time: T + 600, data: keepAlive(1), snr: '20' });
    expect(raw[1].rinfos.map((r: { tap: string }) => r.tap).sort()).toEqual(['1B2C', '3D4E']);

    const children = (await get('/iot/devices/children.json')).json();
    expect(children).toEqual([expect.objectContaining({ serial: 'C0FE/1', index: 1, temp: 'LOW', msgs: 1 })]);

    const own = await app.context.repositories.devices.bySerial('C0FE');
    expect((await post(`/iot/devices/bidirval.json?id=${own!.id}&sn=C0FE&value=0102030405060a0b`)).statusCode).toBe(200);
    const ack = await uplink(3, keepAlive(3), '1B2C', { ack: true });
    expect(ack.json()).toEqual({ C0FE: { downlinkData: '0102030405060A0B' } });

    expect((await post('/iot/devices/clear.json')).statusCode).toBe(200);
    expect((await get('/iot/devices/msgs/history.json')).json()).toEqual([]);
    expect((await get('/iot/devices/msgs/sfx/history.json')).json()).toEqual([]);
  });
});
