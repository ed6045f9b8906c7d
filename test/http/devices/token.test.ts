import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { CATALOG, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

describe.each(dialects)('device token, GET /iot/devices/crc.json (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
  });
  afterAll(() => app.close());

  const crc = (query: string, prefix = '/iot/devices') => app.server.inject({ method: 'GET', url: `${prefix}/crc.json${query}` });
  const history = (token: string) => app.server.inject({ method: 'GET', url: '/iot/devices/msgs/history.json', headers: { 'x-snsr-device-key': token } });

  it.each([
    ['', /sn is required/],
    ['?sn=C0FE', /key is required/],
    ['?key=1A2B3C4D', /sn is required/],
    ['?sn=C0FE&key=', /key is required/],
    ['?sn=C0FE&key=1A2B3C', /key must be 8 or 16 hex digits, got "1A2B3C"/],
    ['?sn=C0FE&key=1A2B3C4G', /key must be 8 or 16 hex digits/],
    ['?sn=FFFF&key=nothex!!', /key must be 8 or 16 hex digits/],
  ])('answers 401 naming what is missing or wrong for %s', async (query, message) => {
    const response = await crc(query);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(message) });
  });

  it('answers 404 for an unknown serial and 401 for a wrong key', async () => {
    const unknown = await crc('?sn=FFFF&key=1A2B3C4D');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe('serial FFFF not found');
    const wrong = await crc('?sn=C0FE&key=DEADBEEF');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe('key does not match module C0FE');
    const otherPac = await crc('?sn=C0FE&key=FEDCBA9876543210');
    expect(otherPac.statusCode).toBe(401);
  });

  it('answers the bare token: text/plain base64 of <SERIAL>:…, no quotes, no newline', async () => {
    const response = await crc('?sn=C0FE&key=1A2B3C4D');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toMatch(/^[A-Za-z0-9+/]+=*$/);
    // One dashboard shows the four characters before the first colon as the serial.
    const decoded = Buffer.from(response.body, 'base64').toString('utf8');
    expect(decoded.slice(0, decoded.indexOf(':'))).toBe('C0FE');
    expect((await history(response.body)).statusCode).toBe(200);
  });

  it('takes the key or the PAC in any case, the serial in any case, values unencoded, and gives the same token', async () => {
    const tokens = new Set<string>();
    for (const query of ['?sn=C0FE&key=1A2B3C4D', '?sn=c0fe&key=1a2b3c4d', '?sn=C0fe&key=0123456789abcdef', '?key=0123456789ABCDEF&sn=c0FE', '?sn= C0FE &key= 1a2b3c4d ']) {
      const response = await crc(query);
      expect(response.statusCode, query).toBe(200);
      tokens.add(response.body);
    }
    expect(tokens.size).toBe(1);
  });

  it('issues tokens to modules no account has registered: the key proves the hardware', async () => {
    const module = await app.context.repositories.modules.bySerial('0ACE');
    expect(module?.accountId).toBeNull();
    const response = await crc('?sn=0ACE&key=0000ace0');
    expect(response.statusCode).toBe(200);
    expect((await history(response.body)).statusCode).toBe(200);
  });

  it('serves the legacy /mcs/devices/crc.json alias with the same token', async () => {
    const legacy = await crc('?sn=BEEF&key=DEADBEEF', '/mcs/devices');
    expect(legacy.statusCode).toBe(200);
    expect(legacy.body).toBe((await crc('?sn=BEEF&key=deadbeef')).body);
    expect((await crc('?sn=BEEF&key=00000000', '/mcs/devices')).statusCode).toBe(401);
  });

  it('ends a token once the module is re-keyed or given a new PAC in the catalog', async () => {
    const [, beef] = CATALOG;
    const before = (await crc('?sn=BEEF&key=DEADBEEF')).body;
    await app.context.repositories.modules.importCatalog([{ ...beef!, pac: 'FEDCBA9876543211' }]);
    const afterPac = await history(before);
    expect(afterPac.statusCode).toBe(401);
    expect(afterPac.json().message).toMatch(/no longer valid/);
    await app.context.repositories.modules.importCatalog([{ ...beef!, key: 'BEEFBEEF' }]);
    expect((await crc('?sn=BEEF&key=DEADBEEF')).statusCode).toBe(401);
    const renewed = await crc('?sn=BEEF&key=beefbeef');
    expect(renewed.statusCode).toBe(200);
    expect(renewed.body).not.toBe(before);
    expect((await history(renewed.body)).statusCode).toBe(200);
    expect((await history(before)).statusCode).toBe(401);
  });

  it('refuses a token signed with another server secret', async () => {
    const other = await startApp(dialect, { SNSR_SECRET: 'another-secret' });
    try {
      await importCatalog(other);
      const foreign = await other.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' });
      expect(foreign.statusCode).toBe(200);
      const response = await history(foreign.body);
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toMatch(/invalid device token/);
    } finally {
      await other.close();
    }
  });
});
