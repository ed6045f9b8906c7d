import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

describe.each(dialects)('modules (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
  });
  afterAll(() => app.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, auth?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.server.inject({ method, url, headers: { ...(auth && { authorization: auth }), ...headers }, ...(payload !== undefined && { payload: payload as string }) });

  it('answers 401 on every module operation without credentials', async () => {
    for (const [method, url] of [
      ['POST', '/iot/developers/modules.json'],
      ['DELETE', '/iot/developers/modules.json?id=1&sn=C0FE'],
      ['GET', '/iot/developers/modules.json'],
      ['GET', '/iot/developers/device.json?sn=C0FE'],
      ['POST', '/iot/developers/pacs.csv'],
    ] as const) {
      expect((await call(method, url)).statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('registers by key or PAC in any case and reports the four lists, always all present', async () => {
    const response = await call('POST', '/iot/developers/modules.json', alice.auth, [
      { serial: 'c0fe', key: '1a2b3c4d' },
      { serial: 'BEEF', key: 'fedcba9876543210' },
      { serial: 'FFFF', key: '00000000' },
      { serial: '0ACE', key: '11111111' },
    ]);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ registered: ['C0FE', 'BEEF'], not_found: ['FFFF'], already_registered: [], invalid_key: ['0ACE'] });
    const again = (await call('POST', '/iot/developers/modules.json', alice.auth, [{ serial: 'C0FE', key: '1A2B3C4D' }])).json();
    expect(again).toEqual({ registered: [], not_found: [], already_registered: ['C0FE'], invalid_key: [] });
    const other = (await call('POST', '/iot/developers/modules.json', bob.auth, [{ serial: 'BEEF', key: 'DEADBEEF' }])).json();
    expect(other.already_registered).toEqual(['BEEF']);
  });

  it('accepts the array sent with a form content type, as one client does', async () => {
    const response = await call('POST', '/iot/developers/modules.json', bob.auth, JSON.stringify([{ serial: '0ACE', key: '0000ACE0' }]), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().registered).toEqual(['0ACE']);
  });

  it.each([
    ['{"serial": 1}', /body must be array/],
    ['[{"key": "00000000"}]', /0\.serial is required/],
    ['[{"serial": "C0FE"}]', /0\.key is required/],
    ['{"modules": "not json"}', /modules/],
    ['[{"serial": "C0FE", "key": "1A2B3C4D"}', /not valid JSON/],
  ])('answers 400 naming the problem for body %s', async (payload, message) => {
    const response = await call('POST', '/iot/developers/modules.json', alice.auth, payload, { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(message);
  });

  it('lists the caller\'s modules with the id of the module\'s device, and nobody else\'s', async () => {
    const list = (await call('GET', '/iot/developers/modules.json', alice.auth)).json();
    expect(list.map((m: { serial: string }) => m.serial)).toEqual(['BEEF', 'C0FE']);
    expect(list[0]).toEqual({ id: expect.stringMatching(/^\d+$/), serial: 'BEEF' });
    expect((await call('GET', '/iot/developers/modules.json', bob.auth)).json().map((m: { serial: string }) => m.serial)).toEqual(['0ACE']);
  });

  it('finds a module with device.json by sn alone or id and sn, 404 otherwise', async () => {
    const bySn = await call('GET', '/iot/developers/device.json?sn=c0fe', alice.auth);
    expect(bySn.statusCode).toBe(200);
    const device = bySn.json();
    expect(device).toMatchObject({ serial: 'C0FE', index: 0, active: true, watched: false, battery: 'UNKNOWN', temp: 'UNKNOWN', status: 'UNDEFINED', type: 'OTHER', protocol: 'UDM23', msgs: 0 });
    expect((await call('GET', `/iot/developers/device.json?id=${device.id}&sn=C0FE`, alice.auth)).json()).toEqual(device);
    expect((await call('GET', `/iot/developers/device.json?id=${Number(device.id) + 1000}&sn=C0FE`, alice.auth)).statusCode).toBe(404);
    expect((await call('GET', '/iot/developers/device.json?sn=0ACE', alice.auth)).statusCode).toBe(404);
    const missing = await call('GET', '/iot/developers/device.json', alice.auth);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/sn is required/);
    expect((await call('GET', '/iot/developers/device.json?sn=C0FE&id=x', alice.auth)).statusCode).toBe(400);
  });

  it('exports PACs as text with the header line', async () => {
    const response = await call('POST', '/iot/developers/pacs.csv', alice.auth, '{}', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toBe('SERIAL; PAC\nBEEF; FEDCBA9876543210\nC0FE; 0123456789ABCDEF\n');
  });

  it('unregisters with id and sn in the query, detaching the module from every app', async () => {
    const appId = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Holder' })).json().id;
    await call('POST', `/iot/developers/apps/${appId}/modules/attach.json`, alice.auth, { serials: ['BEEF', 'C0FE'] });
    const beef = (await call('GET', '/iot/developers/device.json?sn=BEEF', alice.auth)).json();
    expect((await call('DELETE', `/iot/developers/modules.json?id=${beef.id}&sn=0ACE`, alice.auth)).statusCode).toBe(404);
    expect((await call('DELETE', `/iot/developers/modules.json?id=${beef.id}&sn=BEEF`, bob.auth)).statusCode).toBe(404);
    const response = await call('DELETE', `/iot/developers/modules.json?id=${beef.id}&sn=beef`, alice.auth);
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect((await call('GET', `/iot/developers/apps/${appId}/modules.json`, alice.auth)).json().map((m: { serial: string }) => m.serial)).toEqual(['C0FE']);
    expect((await call('GET', '/iot/developers/modules.json', alice.auth)).json().map((m: { serial: string }) => m.serial)).toEqual(['C0FE']);
    const form = await call('DELETE', '/iot/developers/modules.json', alice.auth, 'id=1&sn=', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.statusCode).toBe(400);
    expect(form.json().message).toMatch(/sn is required/);
    // Released: another account may now register it.
    expect((await call('POST', '/iot/developers/modules.json', bob.auth, [{ serial: 'BEEF', key: 'DEADBEEF' }])).json().registered).toEqual(['BEEF']);
  });
});
