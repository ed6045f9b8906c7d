import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

const LEGACY_DATE = /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} (AM|PM)$/;

describe.each(dialects)('apps (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: 'BEEF', key: 'deadbeef' }]);
    await app.context.modules.register(2, [{ serial: '0ACE', key: '0000ACE0' }]);
  });
  afterAll(() => app.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, auth?: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.server.inject({ method, url, headers: { ...(auth && { authorization: auth }), ...headers }, ...(payload !== undefined && { payload: payload as object }) });

  it('answers 401 on every app operation without credentials', async () => {
    for (const [method, url] of [
      ['GET', '/iot/developers/apps.json'],
      ['POST', '/iot/developers/apps.json'],
      ['DELETE', '/iot/developers/apps.json?id=1'],
      ['POST', '/iot/developers/apps/1/modules/attach.json'],
      ['POST', '/iot/developers/apps/1/modules/detach.json'],
      ['GET', '/iot/developers/apps/1/modules.json'],
    ] as const) {
      expect((await call(method, url)).statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('answers 404 for another account\'s app on every operation', async () => {
    const bobs = (await call('POST', '/iot/developers/apps.json', bob.auth, { name: 'bob app' })).json();
    expect((await call('POST', '/iot/developers/apps.json', alice.auth, { id: bobs.id, name: 'stolen' })).statusCode).toBe(404);
    expect((await call('DELETE', `/iot/developers/apps.json?id=${bobs.id}`, alice.auth)).statusCode).toBe(404);
    expect((await call('POST', `/iot/developers/apps/${bobs.id}/modules/attach.json`, alice.auth, { serials: [] })).statusCode).toBe(404);
    expect((await call('POST', `/iot/developers/apps/${bobs.id}/modules/detach.json`, alice.auth, { serials: [] })).statusCode).toBe(404);
    expect((await call('GET', `/iot/developers/apps/${bobs.id}/modules.json`, alice.auth)).statusCode).toBe(404);
    expect((await call('GET', '/iot/developers/apps/99999/modules.json', alice.auth)).statusCode).toBe(404);
    const list = (await call('GET', '/iot/developers/apps.json', alice.auth)).json();
    expect(list.map((a: { id: number }) => a.id)).not.toContain(bobs.id);
  });

  it('creates an app with random key and secret and a legacy created date, ignoring unknown fields', async () => {
    const response = await call('POST', '/iot/developers/apps.json', alice.auth, {
      name: 'Weather',
      description: 'rooftop',
      callbackurl: 'https://example.com/hook',
      $index: 3,
      modules: [],
    });
    expect(response.statusCode).toBe(200);
    const created = response.json();
    expect(created).toMatchObject({ id: expect.any(Number), name: 'Weather', description: 'rooftop', callbackurl: 'https://example.com/hook' });
    expect(created.key).toMatch(/^[0-9a-f]{32}$/);
    expect(created.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(created.created).toMatch(LEGACY_DATE);
    expect(created).not.toHaveProperty('$index');
    const list = (await call('GET', '/iot/developers/apps.json', alice.auth)).json();
    expect(list).toContainEqual(created);
  });

  it('omits callbackurl when unset, updates when the object has an id, and clears with an empty string', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Plain' })).json();
    expect(created).not.toHaveProperty('callbackurl');
    expect(created.description).toBe('');
    const updated = (await call('POST', '/iot/developers/apps.json', alice.auth, { ...created, name: 'Renamed', callbackurl: 'http://example.org/cb' })).json();
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', callbackurl: 'http://example.org/cb', key: created.key, secret: created.secret });
    expect(updated.reftime).toMatch(LEGACY_DATE);
    const cleared = (await call('POST', '/iot/developers/apps.json', alice.auth, { id: String(created.id), callbackurl: '' })).json();
    expect(cleared).not.toHaveProperty('callbackurl');
    expect(cleared.name).toBe('Renamed');
  });

  it.each([
    [{ description: 'no name' }, /name is required/],
    [{ name: 'x', callbackurl: 'ftp://example.com' }, /http or https/],
    [{ name: 'x', callbackurl: 'not a url' }, /not a URL/],
    [{ name: 'x', callbackurl: 'http://127.0.0.1/hook' }, /127\.0\.0\.1 is not a public address \(loopback\)/],
    [{ name: 'x', callbackurl: 'http://10.1.2.3/hook' }, /10\.1\.2\.3 is not a public address \(private\)/],
    [{ name: 'x', callbackurl: 'http://[::1]/hook' }, /::1 is not a public address \(loopback\)/],
    [{ name: 'x', callbackurl: 'http://169.254.169.254/latest' }, /169\.254\.169\.254 is not a public address \(linkLocal\)/],
    [{ name: 'x', callbackurl: 'http://[64:ff9b::a00:1]/hook' }, /rfc6052 of 10\.0\.0\.1, private/],
    [{ name: 'x', callbackurl: 'http://0x7f.1/hook' }, /127\.0\.0\.1 is not a public address \(loopback\)/],
    [{ name: { first: 'x' } }, /name/],
  ])('refuses to save %j with 400', async (body, message) => {
    const response = await call('POST', '/iot/developers/apps.json', alice.auth, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(message);
  });

  it('deletes an app by id from the query string with an empty JSON body', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Doomed' })).json();
    const response = await call('DELETE', `/iot/developers/apps.json?id=${created.id}`, alice.auth, '{}', { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect((await call('DELETE', `/iot/developers/apps.json?id=${created.id}`, alice.auth)).statusCode).toBe(404);
    const missing = await call('DELETE', '/iot/developers/apps.json', alice.auth);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/id is required/);
    expect((await call('DELETE', '/iot/developers/apps.json?id=abc', alice.auth)).statusCode).toBe(400);
  });

  it.each(['1e309', '1e20', '-1', '9007199254740992'])('answers 400 naming idApp for an app id no database holds (%s)', async (id) => {
    for (const [method, url] of [
      ['GET', `/iot/developers/apps/${id}/modules.json`],
      ['POST', `/iot/developers/apps/${id}/modules/attach.json`],
      ['GET', `/iot/developers/apps/${id}/deliveries.json`],
      ['GET', `/iot/developers/apps/${id}/messages.csv`],
    ] as const) {
      const response = await call(method, url, alice.auth, method === 'POST' ? { serials: ['C0FE'] } : undefined);
      expect(response.statusCode, `${method} ${url}`).toBe(400);
      expect(response.json().message, `${method} ${url}`).toMatch(/idApp/);
    }
  });

  it('answers 400 naming the parameter for a number that is not finite in any query', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Finite' })).json();
    for (const url of [`/iot/developers/apps/${created.id}/deliveries.json?limit=1e309`, `/iot/developers/apps/${created.id}/deliveries.json?before=1e309`, '/iot/developers/alerts.json?limit=1e309']) {
      const response = await call('GET', url, alice.auth);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message, url).toMatch(/(limit|before) must be a finite number/);
    }
  });

  it('attaches and detaches the caller\'s modules; lists them with id and serial', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Fleet' })).json();
    const attach = await call('POST', `/iot/developers/apps/${created.id}/modules/attach.json`, alice.auth, { serials: ['c0fe', 'BEEF'] });
    expect(attach.statusCode).toBe(200);
    expect(attach.body).toBe('');
    const modules = (await call('GET', `/iot/developers/apps/${created.id}/modules.json`, alice.auth)).json();
    expect(modules.map((m: { serial: string }) => m.serial)).toEqual(['BEEF', 'C0FE']);
    expect(modules[0].id).toMatch(/^\d+$/);
    await call('POST', `/iot/developers/apps/${created.id}/modules/detach.json`, alice.auth, { serials: ['BEEF'] });
    const after = (await call('GET', `/iot/developers/apps/${created.id}/modules.json`, alice.auth)).json();
    expect(after.map((m: { serial: string }) => m.serial)).toEqual(['C0FE']);
  });

  it('treats {"serials": []} as a no-op and refuses modules the caller does not hold, attaching none', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'Strict' })).json();
    expect((await call('POST', `/iot/developers/apps/${created.id}/modules/attach.json`, alice.auth, { serials: [] })).statusCode).toBe(200);
    const refused = await call('POST', `/iot/developers/apps/${created.id}/modules/attach.json`, alice.auth, { serials: ['C0FE', '0ACE', 'FFFF'] });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().message).toMatch(/0ACE, FFFF/);
    expect((await call('GET', `/iot/developers/apps/${created.id}/modules.json`, alice.auth)).json()).toEqual([]);
    const noBody = await call('POST', `/iot/developers/apps/${created.id}/modules/attach.json`, alice.auth);
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().message).toMatch(/serials/);
  });
});
