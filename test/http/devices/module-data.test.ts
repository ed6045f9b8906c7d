import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { keepAlive, seedDevice, seedUplink, tempLow } from '../../helpers/seed.js';
import { enqueueDeliveries } from '../../../src/delivery/outbox.js';

const T0 = Date.UTC(2017, 3, 9, 15, 4, 5);

describe.each(dialects)('device module data: children, clear, pacs (%s)', (dialect) => {
  let app: TestApp;
  let c0fe: string;
  let beef: string;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    // C0FE gateways children 1 and 3; BEEF has a child of its own that C0FE must never see.
    await seedUplink(app, { module: 'C0FE', at: T0, frame: keepAlive(0), seq: 0 });
    await seedUplink(app, { module: 'C0FE', at: T0 + 60_000, frame: tempLow(1, 3), seq: 1 });
    await seedUplink(app, { module: 'C0FE', at: T0 + 120_000, frame: keepAlive(2, 1), seq: 2 });
    await seedUplink(app, { module: 'C0FE', at: T0 + 3_600_000, frame: keepAlive(3, 1), seq: 3 });
    await seedDevice(app, 'BEEF', 2);
    await seedUplink(app, { module: 'BEEF', at: T0, frame: '1300011C', protocol: 'UDM22', seq: 0 });
    await app.context.storage.db.updateTable('devices').set({ uid: '0001ABCD', category: 'sensor' }).where('serial', '=', 'C0FE/3').execute();
    const crc = (q: string) => app.server.inject({ method: 'GET', url: `/iot/devices/crc.json?${q}` });
    c0fe = (await crc('sn=C0FE&key=1A2B3C4D')).body;
    beef = (await crc('sn=BEEF&key=DEADBEEF')).body;
  });
  afterAll(() => app.close());

  const call = (method: 'GET' | 'POST', url: string, token: string, extra: { payload?: string; headers?: Record<string, string> } = {}) =>
    app.server.inject({ method, url, headers: { 'x-snsr-device-key': token, ...extra.headers }, ...(extra.payload !== undefined && { payload: extra.payload }) });

  it('answers 401 without a token and 404 when sn names a device the module does not have', async () => {
    for (const [method, url] of [['GET', '/iot/devices/children.json'], ['POST', '/iot/devices/clear.json'], ['POST', '/iot/devices/pacs.csv']] as const) {
      expect((await app.server.inject({ method, url })).statusCode, url).toBe(401);
      expect((await call(method, `${url}?sn=C0FE/9`, c0fe)).statusCode, url).toBe(404);
    }
  });

  describe('children.json', () => {
    it('lists the devices behind the module in index order with every field of the device table and of its newest message', async () => {
      const response = await call('GET', '/iot/devices/children.json', c0fe);
      expect(response.statusCode).toBe(200);
      const [one, three, ...rest] = response.json();
      expect(rest).toEqual([]);
      expect(one).toEqual({
        id: expect.stringMatching(/^\d+$/),
        serial: 'C0FE/1',
        index: 1,
        active: true,
        watched: false,
        alerts: 0,
        alerts_ack: 0,
        losts: 0,
        msgs: 2,
        firstseen: 'Apr 9, 2017 3:06:05 PM',
        lastseen: 'Apr 9, 2017 4:04:05 PM',
        battery: 'UNKNOWN',
        level: 'UNKNOWN',
        network: 'ON',
        tamper: 'UNKNOWN',
        temp: 'UNKNOWN',
        status: 'UNDEFINED',
        type: 'OTHER',
        // its newest message: the keep-alive of T0 + 1 h, not the older one
        when: T0 + 3_600_000,
        raw: keepAlive(3, 1),
        hr: 'keepalive voltage temp: interval 24 h, voltage 3.3 V, temperature 21.5 °C',
        lvl: '-120.5',
        station: '1B2C',
      });
      expect(three).toMatchObject({
        serial: 'C0FE/3', index: 3, uid: '0001ABCD', category: 'sensor', temp: 'LOW', msgs: 1,
        when: T0 + 60_000, raw: tempLow(1, 3), hr: 'event temp low: temperature -5 °C', lvl: '-120.5', station: '1B2C',
      });
    });

    it('answers an empty array for a module without children, and never another module’s', async () => {
      const zero = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=0ACE&key=0000ACE0' })).body;
      expect((await call('GET', '/iot/devices/children.json', zero)).json()).toEqual([]);
      expect((await call('GET', '/iot/devices/children.json', beef)).json().map((d: { serial: string }) => d.serial)).toEqual(['BEEF/2']);
    });

    it('leaves out the message fields of a child never heard from', async () => {
      await seedDevice(app, 'C0FE', 5);
      const children = (await call('GET', '/iot/devices/children.json', c0fe)).json() as Record<string, unknown>[];
      const five = children.find((c) => c.serial === 'C0FE/5')!;
      expect(five).toMatchObject({ index: 5, msgs: 0 });
      for (const field of ['when', 'raw', 'hr', 'lvl', 'station']) expect(five).not.toHaveProperty(field);
      await app.context.storage.db.deleteFrom('devices').where('serial', '=', 'C0FE/5').execute();
    });

    it('writes dates in the configured time zone', async () => {
      const paris = await startApp(dialect, { SNSR_TIMEZONE: 'Europe/Paris' });
      try {
        await importCatalog(paris);
        await seedUplink(paris, { module: 'C0FE', at: T0, frame: keepAlive(0, 1) });
        const token = (await paris.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
        const [child] = (await paris.server.inject({ method: 'GET', url: '/iot/devices/children.json', headers: { 'x-snsr-device-key': token } })).json();
        expect(child.firstseen).toBe('Apr 9, 2017 5:04:05 PM');
      } finally {
        await paris.close();
      }
    });
  });

  describe('pacs.csv', () => {
    it('answers the header and the module’s own line, with an empty body or {}', async () => {
      for (const extra of [{}, { payload: '{}', headers: { 'content-type': 'application/json' } }, { payload: '', headers: { 'content-type': 'application/json' } }]) {
        const response = await call('POST', '/iot/devices/pacs.csv', c0fe, extra);
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        expect(response.body).toBe('SERIAL; PAC\nC0FE; 0123456789ABCDEF\n');
      }
      expect((await call('POST', '/iot/devices/pacs.csv', beef)).body).toBe('SERIAL; PAC\nBEEF; FEDCBA9876543210\n');
    });

    it('answers the module’s line to its owner with developer credentials and sn', async () => {
      const response = await app.server.inject({ method: 'POST', url: '/iot/devices/pacs.csv?sn=c0fe', headers: { authorization: alice.auth } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('SERIAL; PAC\nC0FE; 0123456789ABCDEF\n');
    });
  });

  describe('clear.json', () => {
    const count = async (table: 'messages' | 'raw_messages', module: string) =>
      Number(
        (await app.context.storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('module_serial', '=', module).executeTakeFirstOrThrow()).n,
      );

    it('removes every message and raw message of the module and its children, with their pending deliveries', async () => {
      const hook = await app.context.apps.save(1, { name: 'hook', callbackurl: 'https://example.com/hook' });
      await app.context.apps.attach(1, hook.id, ['C0FE']);
      const stored = await app.context.storage.db.selectFrom('messages').select(['id', 'module_serial']).where('module_serial', '=', 'C0FE').execute();
      for (const message of stored) await enqueueDeliveries(app.context.storage.db, message);
      expect(stored).toHaveLength(4);
      expect(await count('raw_messages', 'C0FE')).toBe(4);

      const response = await call('POST', '/iot/devices/clear.json', c0fe);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('');
      expect(await count('messages', 'C0FE')).toBe(0);
      expect(await count('raw_messages', 'C0FE')).toBe(0);
      const deliveries = await app.context.storage.db.selectFrom('deliveries').select('id').execute();
      expect(deliveries).toEqual([]);
      expect((await call('GET', '/iot/devices/msgs/history.json', c0fe)).json()).toEqual([]);
      expect((await call('GET', '/iot/devices/msgs/sfx/history.json', c0fe)).json()).toEqual([]);
      // The devices stay, with their state; other modules keep their data.
      expect((await call('GET', '/iot/devices/children.json', c0fe)).json()).toHaveLength(2);
      expect(await count('messages', 'BEEF')).toBe(1);
      expect(await count('raw_messages', 'BEEF')).toBe(1);
    });

    it('accepts an empty body, {} and a body-less JSON content type, and clearing twice is fine', async () => {
      for (const extra of [{}, { payload: '{}', headers: { 'content-type': 'application/json' } }, { payload: '', headers: { 'content-type': 'application/json' } }]) {
        expect((await call('POST', '/iot/devices/clear.json', c0fe, extra)).statusCode).toBe(200);
      }
    });

    it('clears with developer credentials for the owner only', async () => {
      await seedUplink(app, { module: 'C0FE', at: T0 + 7_200_000, frame: keepAlive(4), seq: 4 });
      const bob = await createDeveloper(app, 'bob@example.com');
      expect((await app.server.inject({ method: 'POST', url: '/iot/devices/clear.json?sn=C0FE', headers: { authorization: bob.auth } })).statusCode).toBe(404);
      expect(await count('messages', 'C0FE')).toBe(1);
      expect((await app.server.inject({ method: 'POST', url: '/iot/devices/clear.json?sn=C0FE', headers: { authorization: alice.auth } })).statusCode).toBe(200);
      expect(await count('messages', 'C0FE')).toBe(0);
    });
  });
});
