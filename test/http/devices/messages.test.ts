import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { keepAlive, seedUplink, tempLow } from '../../helpers/seed.js';

const T0 = Date.UTC(2017, 3, 9, 15, 4, 5);
const MINUTE = 60_000;
const COUNT = 30;

interface Message {
  when: number;
  device: string;
  type: string;
}

describe.each(dialects)('device messages: history, recents, raw history (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  let childId: number;
  let moduleDeviceId: number;
  let beefDeviceId: number;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    // C0FE: one uplink a minute; every third comes from its child 1, heard by two base stations.
    for (let i = 0; i < COUNT; i++) {
      const child = i % 3 === 2;
      const seeded = await seedUplink(app, {
        module: 'C0FE',
        at: T0 + i * MINUTE,
        frame: child ? tempLow(i, 1) : keepAlive(i),
        seq: i,
        stations: child ? [{ tap: '0A1B', rssi: -131, snr: 8.5 }, { tap: '7F00', rssi: -118.25, snr: 21 }] : [{ tap: '0A1B', rssi: -125, snr: 14 }],
      });
      if (child) childId = seeded.deviceId;
      else moduleDeviceId = seeded.deviceId;
    }
    for (let i = 0; i < 3; i++) {
      beefDeviceId = (await seedUplink(app, { module: 'BEEF', at: T0 + i * MINUTE + 30_000, frame: '1300011C', protocol: 'UDM22', seq: i })).deviceId;
    }
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const get = (url: string) => app.server.inject({ method: 'GET', url, headers: { 'x-snsr-device-key': token } });
  const messages = async (url: string): Promise<Message[]> => {
    const response = await get(url);
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json();
  };
  const whenOf = (i: number) => T0 + i * MINUTE;

  it('answers 404 for a device outside the module, on history, recents and raw history', async () => {
    for (const path of ['/iot/devices/msgs/history.json', '/iot/devices/msgs/recents.json', '/iot/devices/msgs/sfx/history.json']) {
      for (const query of [`id=${beefDeviceId}`, 'id=999999', 'sn=C0FE/9', `id=${beefDeviceId}&sn=C0FE`]) {
        const response = await get(`${path}?${query}`);
        expect(response.statusCode, `${path}?${query}`).toBe(404);
        expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      }
    }
  });

  it('answers the newest 20 of the module (its device and its children) by default, newest first', async () => {
    const list = await messages('/iot/devices/msgs/history.json');
    expect(list.map((m) => m.when)).toEqual(Array.from({ length: 20 }, (_, k) => whenOf(COUNT - 1 - k)));
    expect(new Set(list.map((m) => m.device))).toEqual(new Set(['C0FE', 'C0FE/1']));
  });

  it('presents each message in the wire form clients parse', async () => {
    const response = await get('/iot/devices/msgs/history.json?amount=2');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const [child, module] = response.json() as Message[];
    expect(child).toEqual({
      when: whenOf(29),
      lvl: '-131',
      station: '0A1B',
      type: 'event:templow',
      device: 'C0FE/1',
      extra: { message: tempLow(29, 1), time: whenOf(29) / 1000, temperature_c: -5 },
      contrib: { temp: 'LOW' },
      ctxt: expect.objectContaining({ temp: 'LOW', msgs: 10, active: true, lastseen: 'Apr 9, 2017 3:33:05 PM' }),
      received: whenOf(29),
      payload: tempLow(29, 1),
    });
    expect(module).toMatchObject({ when: whenOf(28), lvl: '-125', station: '0A1B', type: 'keepalive:voltagetemp', device: 'C0FE' });
    expect(module!).toHaveProperty('extra', { message: keepAlive(28), time: whenOf(28) / 1000, interval_h: 24, voltage_mv: 3300, temperature_c: 21.5 });
    expect(Number((module as unknown as { lvl: string }).lvl)).toBe(-125);
  });

  it('takes amount from 1 to 1000 and answers 400 naming it otherwise', async () => {
    expect(await messages('/iot/devices/msgs/history.json?amount=1')).toHaveLength(1);
    expect(await messages('/iot/devices/msgs/history.json?amount=1000')).toHaveLength(COUNT);
    expect(await messages('/iot/devices/msgs/recents.json?amount=')).toHaveLength(20);
    for (const amount of ['1001', '0', '-1', 'abc', '2.5', '1e3']) {
      for (const path of ['/iot/devices/msgs/history.json', '/iot/devices/msgs/recents.json']) {
        const response = await get(`${path}?amount=${amount}`);
        expect(response.statusCode, `${path}?amount=${amount}`).toBe(400);
        expect(response.json().message).toBe(`amount must be a whole number from 1 to 1000, got "${amount}"`);
      }
    }
  });

  it('treats until as an exclusive bound in milliseconds or seconds', async () => {
    const ms = await messages(`/iot/devices/msgs/history.json?until=${whenOf(10)}&amount=3`);
    expect(ms.map((m) => m.when)).toEqual([whenOf(9), whenOf(8), whenOf(7)]);
    const seconds = await messages(`/iot/devices/msgs/history.json?until=${whenOf(10) / 1000}&amount=3`);
    expect(seconds).toEqual(ms);
    const justAfter = await messages(`/iot/devices/msgs/history.json?until=${whenOf(10) + 1}&amount=1`);
    expect(justAfter.map((m) => m.when)).toEqual([whenOf(10)]);
    expect(await messages(`/iot/devices/msgs/history.json?until=${T0}`)).toEqual([]);
    for (const until of ['yesterday', '-5', '1e400', '99999999999999999999']) {
      const response = await get(`/iot/devices/msgs/history.json?until=${until}`);
      expect(response.statusCode, until).toBe(400);
      expect(response.json().message).toMatch(/^until must be an epoch time/);
    }
  });

  it('pages back through the whole history without repeats when until is the oldest when shown', async () => {
    const seen: number[] = [];
    let url = '/iot/devices/msgs/history.json?amount=7';
    for (;;) {
      const page = await messages(url);
      if (page.length === 0) break;
      seen.push(...page.map((m) => m.when));
      url = `/iot/devices/msgs/history.json?amount=7&until=${page.at(-1)!.when}`;
    }
    expect(seen).toEqual(Array.from({ length: COUNT }, (_, k) => whenOf(COUNT - 1 - k)));
  });

  it('answers recents after an exclusive bound, newest first, and the newest messages without one', async () => {
    const newest = await messages('/iot/devices/msgs/recents.json?amount=3');
    expect(newest.map((m) => m.when)).toEqual([whenOf(29), whenOf(28), whenOf(27)]);
    expect(await messages(`/iot/devices/msgs/recents.json?after=${whenOf(29)}`)).toEqual([]);
    const after = await messages(`/iot/devices/msgs/recents.json?after=${whenOf(25)}`);
    expect(after.map((m) => m.when)).toEqual([whenOf(29), whenOf(28), whenOf(27), whenOf(26)]);
    expect(await messages(`/iot/devices/msgs/recents.json?after=${whenOf(25) / 1000}`)).toEqual(after);
    const capped = await messages(`/iot/devices/msgs/recents.json?after=${T0 - 1}&amount=2`);
    expect(capped.map((m) => m.when)).toEqual([whenOf(29), whenOf(28)]);
    const bad = await get('/iot/devices/msgs/recents.json?after=now');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^after must be an epoch time/);
  });

  it('polls recents like the dashboard: each new message once, inserted at the top', async () => {
    const shown = await messages('/iot/devices/msgs/history.json?amount=5');
    const poll = async () => messages(`/iot/devices/msgs/recents.json?after=${shown[0]!.when}`);
    expect(await poll()).toEqual([]);
    await seedUplink(app, { module: 'C0FE', at: whenOf(COUNT) + 1000, frame: keepAlive(1), seq: 100 });
    await seedUplink(app, { module: 'C0FE', at: whenOf(COUNT) + 2000, frame: keepAlive(2), seq: 101 });
    const fresh = await poll();
    expect(fresh.map((m) => m.when)).toEqual([whenOf(COUNT) + 2000, whenOf(COUNT) + 1000]);
    shown.unshift(...fresh);
    expect(await poll()).toEqual([]);
    await app.context.storage.db.deleteFrom('messages').where('when_ms', '>', whenOf(COUNT)).execute();
    await app.context.storage.db.deleteFrom('raw_messages').where('seq_number', '>=', 100).execute();
  });

  it('narrows to one device by id, or by a child serial in sn', async () => {
    const child = await messages(`/iot/devices/msgs/history.json?id=${childId}&amount=1000`);
    expect(child).toHaveLength(COUNT / 3);
    expect(child.every((m) => m.device === 'C0FE/1' && m.type === 'event:templow')).toBe(true);
    expect(await messages('/iot/devices/msgs/history.json?sn=c0fe/1&amount=1000')).toEqual(child);
    expect(await messages(`/iot/devices/msgs/history.json?id=${childId}&sn=C0FE/1&amount=1000`)).toEqual(child);
    const own = await messages(`/iot/devices/msgs/history.json?id=${moduleDeviceId}&amount=1000`);
    expect(own).toHaveLength(COUNT - COUNT / 3);
    expect(own.every((m) => m.device === 'C0FE')).toBe(true);
    const childRecents = await messages(`/iot/devices/msgs/recents.json?id=${childId}&after=${whenOf(20)}`);
    expect(childRecents.map((m) => m.when)).toEqual([whenOf(29), whenOf(26), whenOf(23)]);
    expect((await get('/iot/devices/msgs/history.json?id=abc')).statusCode).toBe(400);
  });

  it('serves the legacy /mcs/devices history and recents exactly like /iot/devices', async () => {
    for (const query of ['msgs/history.json?amount=4', `msgs/history.json?until=${whenOf(5)}`, 'msgs/recents.json', `msgs/recents.json?after=${whenOf(27)}`]) {
      expect(await messages(`/mcs/devices/${query}`), query).toEqual(await messages(`/iot/devices/${query}`));
    }
  });

  describe('raw history', () => {
    interface Raw {
      device: string;
      time: number;
      data: string;
      rinfos: { tap: string; snr: string; rssi: string }[];
    }
    const raws = async (url: string): Promise<Raw[]> => (await messages(url)) as unknown as Raw[];
    const timeOf = (i: number) => whenOf(i) / 1000;

    it('answers the module’s uplinks newest first, 20 by default, one rinfo per base station', async () => {
      const list = await raws('/iot/devices/msgs/sfx/history.json');
      expect(list.map((r) => r.time)).toEqual(Array.from({ length: 20 }, (_, k) => timeOf(COUNT - 1 - k)));
      expect(list[0]).toEqual({
        device: 'C0FE',
        time: timeOf(29),
        data: tempLow(29, 1),
        payload: tempLow(29, 1),
        snr: '21',
        seqNumber: 29,
        rinfos: [
          { tap: '0A1B', snr: '8.5', rssi: '-131' },
          { tap: '7F00', snr: '21', rssi: '-118.25' },
        ],
      });
      expect(list[1]!.rinfos).toEqual([{ tap: '0A1B', snr: '14', rssi: '-125' }]);
    });

    it('takes limit or amount, limit winning, and answers 400 naming it beyond 1000', async () => {
      expect(await raws('/iot/devices/msgs/sfx/history.json?limit=3')).toHaveLength(3);
      expect(await raws('/iot/devices/msgs/sfx/history.json?amount=4')).toHaveLength(4);
      expect(await raws('/iot/devices/msgs/sfx/history.json?limit=2&amount=9')).toHaveLength(2);
      expect(await raws('/iot/devices/msgs/sfx/history.json?limit=1000')).toHaveLength(COUNT);
      const tooMany = await get('/iot/devices/msgs/sfx/history.json?limit=1001');
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().message).toMatch(/^limit must be a whole number from 1 to 1000/);
      expect((await get('/iot/devices/msgs/sfx/history.json?amount=x')).json().message).toMatch(/^limit must be/);
    });

    it('treats before as an exclusive bound compared with time in seconds, sent in ms or s', async () => {
      const ms = await raws(`/iot/devices/msgs/sfx/history.json?before=${whenOf(10)}&limit=2`);
      expect(ms.map((r) => r.time)).toEqual([timeOf(9), timeOf(8)]);
      expect(await raws(`/iot/devices/msgs/sfx/history.json?before=${timeOf(10)}&limit=2`)).toEqual(ms);
      const withinSecond = await raws(`/iot/devices/msgs/sfx/history.json?before=${whenOf(10) + 500}&limit=1`);
      expect(withinSecond.map((r) => r.time)).toEqual([timeOf(10)]);
      const bad = await get('/iot/devices/msgs/sfx/history.json?before=soon');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toMatch(/^before must be an epoch time/);
    });

    it('never shows another module’s uplinks', async () => {
      const all = await raws('/iot/devices/msgs/sfx/history.json?limit=1000');
      expect(all.every((r) => r.device === 'C0FE')).toBe(true);
      const beefToken = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=BEEF&key=DEADBEEF' })).body;
      const beef = await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/sfx/history.json', headers: { 'x-snsr-device-key': beefToken } });
      expect(beef.json().map((r: Raw) => r.device)).toEqual(['BEEF', 'BEEF', 'BEEF']);
    });
  });
});
