import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { seedUplink, tempLow } from '../../helpers/seed.js';

const T0 = Date.UTC(2017, 3, 9, 15, 4, 5);

/** Every authenticated device operation, with the parameters that make it succeed for C0FE. */
const OPERATIONS = [
  ['POST', '/iot/devices/pacs.csv'],
  ['GET', '/iot/devices/msgs/history.json'],
  ['GET', '/iot/devices/msgs/recents.json'],
  ['GET', '/iot/devices/msgs/sfx/history.json'],
  ['GET', '/iot/devices/children.json'],
  ['POST', '/iot/devices/clear.json'],
  ['POST', '/iot/devices/status.json?id=ID&value=ALARM'],
  ['POST', '/iot/devices/active.json?id=ID&value=true'],
  ['POST', '/iot/devices/watch.json?id=ID&value=1'],
  ['POST', '/iot/devices/bidirval.json?id=ID&value=0011223344556677'],
  ['GET', '/mcs/devices/msgs/history.json'],
  ['GET', '/mcs/devices/msgs/recents.json'],
] as const;

describe.each(dialects)('device authentication (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  let deviceId: number;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    await app.context.modules.register(2, [{ serial: 'BEEF', key: 'DEADBEEF' }]);
    deviceId = (await seedUplink(app, { module: 'C0FE', at: T0, frame: tempLow() })).deviceId;
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const call = (method: string, url: string, headers: Record<string, string> = {}) =>
    app.server.inject({ method: method as 'GET', url: url.replace('ID', String(deviceId)), headers });

  it('answers 401 with a message on every operation without credentials', async () => {
    for (const [method, url] of OPERATIONS) {
      const response = await call(method, url);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(/missing X-Snsr-Device-Key/) });
    }
  });

  it.each([
    ['malformed', 'not a token!'],
    ['not base64 of a token', Buffer.from('hello world').toString('base64')],
    ['forged', Buffer.from(`C0FE:AAAAAAAA.${'B'.repeat(24)}`).toString('base64')],
    ['truncated', 'QzBGRTpFelhOQVl2cS5TclV1bE5TM25U'],
    ['a Basic credential', 'Basic abc'],
  ])('answers 401 on every operation with a %s token', async (_name, bad) => {
    for (const [method, url] of OPERATIONS) {
      const response = await call(method, url, { 'x-snsr-device-key': bad });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(response.json().message).toMatch(/invalid device token/);
    }
  });

  it.each(['', 'undefined', 'null'])('answers 401 naming the empty header %j', async (value) => {
    const response = await call('GET', '/iot/devices/msgs/history.json', { 'X-Snsr-Device-Key': value });
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toMatch(/X-Snsr-Device-Key holds no token|missing X-Snsr-Device-Key/);
  });

  it('answers 401 for a real token whose serial was swapped for another module’s', async () => {
    const swapped = Buffer.from(Buffer.from(token, 'base64').toString('utf8').replace(/^C0FE:/, 'BEEF:')).toString('base64');
    const response = await call('GET', '/iot/devices/msgs/history.json', { 'x-snsr-device-key': swapped });
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toMatch(/invalid device token/);
  });

  it('accepts the header in the three casings clients send, surrounding quotes or whitespace too', async () => {
    for (const name of ['X-Snsr-Device-Key', 'x-snsr-device-key', 'X-SNSR-DEVICE-KEY']) {
      const response = await call('GET', '/iot/devices/msgs/history.json', { [name]: token });
      expect(response.statusCode, name).toBe(200);
      expect(response.json()).toHaveLength(1);
    }
    expect((await call('GET', '/iot/devices/children.json', { 'x-snsr-device-key': `"${token}"` })).statusCode).toBe(200);
    expect((await call('GET', '/iot/devices/children.json', { 'x-snsr-device-key': ` ${token} ` })).statusCode).toBe(200);
  });

  it('succeeds on every operation with the token, with or without sn, in any case', async () => {
    for (const [method, url] of OPERATIONS.filter(([, u]) => !u.includes('clear'))) {
      for (const sn of ['', 'sn=C0FE', 'sn=c0fe']) {
        const full = sn === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${sn}`;
        expect((await call(method, full, { 'x-snsr-device-key': token })).statusCode, `${method} ${full}`).toBe(200);
      }
    }
  });

  it('ignores a sn naming another module, with the token: the token decides the module', async () => {
    for (const url of ['/iot/devices/msgs/history.json?sn=BEEF', '/iot/devices/msgs/sfx/history.json?sn=0ACE', '/iot/devices/status.json?id=ID&sn=BEEF&value=ALARM']) {
      const response = await call(url.includes('status') ? 'POST' : 'GET', url, { 'x-snsr-device-key': token });
      expect(response.statusCode, url).toBe(200);
    }
    expect((await call('GET', '/iot/devices/msgs/history.json?sn=BEEF', { 'x-snsr-device-key': token })).json()).toHaveLength(1);
  });

  describe('with developer credentials', () => {
    it('serves modules the developer owns, sn naming the module in any case, password or account token', async () => {
      for (const auth of [alice.auth, `Basic ${alice.token}`]) {
        const response = await call('GET', '/iot/devices/msgs/history.json?sn=c0fe', { authorization: auth });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toHaveLength(1);
      }
      const flag = await call('POST', '/iot/devices/watch.json?id=ID&sn=C0FE&value=true', { authorization: alice.auth });
      expect(flag.statusCode).toBe(200);
      expect((await app.context.repositories.devices.byId(deviceId))?.watched).toBe(true);
    });

    it('reads sn from a form body as well as the query string', async () => {
      const response = await app.server.inject({
        method: 'POST',
        url: '/iot/devices/active.json',
        headers: { authorization: alice.auth, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `id=${deviceId}&sn=C0FE&value=false`,
      });
      expect(response.statusCode).toBe(200);
      expect((await app.context.repositories.devices.byId(deviceId))?.active).toBe(false);
    });

    it('answers 404 for modules the developer does not own, and unknown ones', async () => {
      for (const sn of ['C0FE', '0ACE', 'FFFF']) {
        const response = await call('GET', `/iot/devices/msgs/history.json?sn=${sn}`, { authorization: bob.auth });
        expect(response.statusCode, sn).toBe(404);
      }
      expect((await call('POST', '/iot/devices/clear.json?sn=C0FE', { authorization: bob.auth })).statusCode).toBe(404);
      expect((await call('GET', '/iot/devices/msgs/history.json?sn=C0FE', { authorization: alice.auth })).json()).toHaveLength(1);
    });

    it('answers 400 naming sn when it is missing, and 401 for bad credentials', async () => {
      const missing = await call('GET', '/iot/devices/children.json', { authorization: alice.auth });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().message).toMatch(/sn is required/);
      for (const auth of [basic('alice@example.com', 'wrong'), 'Basic undefined', 'Bearer x']) {
        expect((await call('GET', '/iot/devices/children.json?sn=C0FE', { authorization: auth })).statusCode, auth).toBe(401);
      }
      expect((await call('GET', '/iot/devices/children.json?sn=C0FE', { authorization: basic('nobody@example.com', 'x') })).statusCode).toBe(404);
    });

    it('prefers a device token over developer credentials, and falls back to them for a placeholder header', async () => {
      const both = await call('GET', '/iot/devices/msgs/history.json', { 'x-snsr-device-key': token, authorization: bob.auth });
      expect(both.statusCode).toBe(200);
      const placeholder = await call('GET', '/iot/devices/msgs/history.json?sn=C0FE', { 'x-snsr-device-key': 'undefined', authorization: alice.auth });
      expect(placeholder.statusCode).toBe(200);
    });
  });
});
