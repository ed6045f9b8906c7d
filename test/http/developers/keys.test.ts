import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, importCatalog, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const LISTED = ['created', 'expires', 'id', 'last_used', 'name', 'prefix', 'scope'];

describe.each(dialects)('API keys (%s)', (dialect) => {
  let app: TestApp;
  let dev: { auth: string; token: string; email: string };
  let other: { auth: string; token: string; email: string };
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    dev = await createDeveloper(app, 'keys@example.com');
    other = await createDeveloper(app, 'other@example.com');
  });
  afterAll(() => app.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, authorization?: string, payload?: unknown) =>
    app.server.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload !== undefined && { payload: payload as object }) });
  const create = async (body: object, auth = dev.auth) => {
    const response = await call('POST', '/iot/developers/keys.json', auth, body);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { id: number; name: string; prefix: string; scope: string; secret: string; token: string; expires: number | null };
  };
  const bearer = (token: string) => `Basic ${token}`;

  it('answers 401 without credentials and 404 for an unknown account', async () => {
    for (const [method, url] of [['GET', '/iot/developers/keys.json'], ['POST', '/iot/developers/keys.json'], ['DELETE', '/iot/developers/keys.json?id=1']] as const) {
      expect((await call(method, url)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, basic('ghost@example.com', PASSWORD))).statusCode, `${method} ${url}`).toBe(404);
    }
  });

  it('creates a key: the secret is shown once, the database keeps its SHA-256, the token is base64 of email:secret', async () => {
    const key = await create({ name: 'ci', scope: 'full' });
    expect(key.secret).toMatch(/^snsr_[A-Za-z0-9_-]{32}$/);
    expect(key.prefix).toBe(key.secret.slice(0, 13));
    expect(Buffer.from(key.token, 'base64').toString()).toBe(`${dev.email}:${key.secret}`);
    expect(key).toMatchObject({ name: 'ci', scope: 'full', expires: null });
    const row = await app.context.storage.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(sha256(key.secret));
    expect(JSON.stringify(row)).not.toContain(key.secret.slice(13));

    const list = (await call('GET', '/iot/developers/keys.json', dev.auth)).json();
    const listed = list.find((k: { id: number }) => k.id === key.id);
    expect(Object.keys(listed).sort()).toEqual(LISTED);
    expect(listed).toMatchObject({ name: 'ci', prefix: key.prefix, scope: 'full', expires: null, last_used: null });
    expect(JSON.stringify(list)).not.toContain(key.secret);
  });

  it('a full key works wherever the account token does, for old and new clients', async () => {
    const key = await create({ name: 'full-everywhere' });
    expect(key.scope).toBe('full');
    expect((await call('GET', '/security/authentication', bearer(key.token))).statusCode).toBe(200);
    expect((await call('GET', '/iot/developers/apps.json', bearer(key.token))).statusCode).toBe(200);
    const app1 = await call('POST', '/iot/developers/apps.json', bearer(key.token), { name: 'made with a key' });
    expect(app1.statusCode).toBe(200);
    expect((await call('POST', '/iot/developers/modules.json', bearer(key.token), [{ serial: 'C0FE', key: '1A2B3C4D' }])).json().registered).toEqual(['C0FE']);
    expect((await call('GET', '/iot/devices/msgs/history.json?sn=C0FE', bearer(key.token))).statusCode).toBe(200);
    // The oldest clients log in with ?login=&pwd= and keep the body as their token: they get the key's.
    const login = await call('GET', `/security/authentication?login=${dev.email}&pwd=${key.secret}`);
    expect(login.body).toBe(key.token);
    // last_used is set on use.
    const listed = (await call('GET', '/iot/developers/keys.json', dev.auth)).json().find((k: { id: number }) => k.id === key.id);
    expect(listed.last_used).toBeGreaterThan(Date.now() - 60_000);
  });

  it('a read key reads, and gets 403 on every write', async () => {
    const key = await create({ name: 'grafana', scope: 'read' });
    const auth = bearer(key.token);
    for (const url of ['/iot/developers/apps.json', '/iot/developers/modules.json', '/iot/developers/keys.json', '/iot/developers/audit.json', '/iot/devices/children.json?sn=C0FE', '/iot/developers.json']) {
      expect((await call('GET', url, auth)).statusCode, url).toBe(200);
    }
    // POST operations that only read.
    expect((await call('POST', '/iot/developers/pacs.csv', auth)).statusCode).toBe(200);
    expect((await call('POST', '/iot/devices/pacs.csv?sn=C0FE', auth)).statusCode).toBe(200);
    expect((await call('POST', '/security/authentication', auth)).statusCode).toBe(200);
    const device = (await call('GET', '/iot/developers/device.json?sn=C0FE', auth)).json();
    const writes: [('POST' | 'DELETE'), string, unknown][] = [
      ['POST', '/iot/developers/apps.json', { name: 'nope' }],
      ['DELETE', '/iot/developers/apps.json?id=1', undefined],
      ['POST', '/iot/developers/modules.json', [{ serial: '0ACE', key: '0000ACE0' }]],
      ['DELETE', `/iot/developers/modules.json?id=${device.id}&sn=C0FE`, undefined],
      ['POST', '/iot/developers/keys.json', { name: 'escalate' }],
      ['POST', '/iot/developers/token.json', undefined],
      ['POST', '/iot/developers/registerGit.json', { gitAlias: 'x' }],
      ['POST', `/iot/devices/active.json?sn=C0FE&id=${device.id}&value=false`, undefined],
      ['POST', '/iot/devices/clear.json?sn=C0FE', undefined],
      ['DELETE', `/iot/developers.json?email=${dev.email}`, undefined],
    ];
    for (const [method, url, payload] of writes) {
      const response = await call(method, url, auth, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json()).toMatchObject({ statusCode: 403, error: 'Forbidden' });
      expect(response.json().message).toMatch(/API key "grafana" is read-only/);
    }
    // account.json shows the account token, a full credential: not for a read key.
    expect((await call('GET', '/iot/developers/account.json', auth)).statusCode).toBe(403);
    expect((await call('GET', '/iot/developers/modules.json', auth)).json().map((m: { serial: string }) => m.serial)).toEqual(['C0FE']);
  });

  it('an expired key is refused with 401 saying so; an expiry must be a future date', async () => {
    const inAnHour = Date.now() + 3_600_000;
    const key = await create({ name: 'short-lived', scope: 'read', expires: inAnHour });
    expect(key.expires).toBe(inAnHour);
    const iso = await create({ name: 'iso-expiry', expires: '2099-01-01T00:00:00Z' });
    expect(iso.expires).toBe(Date.UTC(2099, 0, 1));
    const seconds = await create({ name: 'seconds-expiry', expires: Math.floor(inAnHour / 1000) });
    expect(seconds.expires).toBe(Math.floor(inAnHour / 1000) * 1000);
    expect((await call('GET', '/iot/developers/apps.json', bearer(key.token))).statusCode).toBe(200);
    await app.context.storage.db.updateTable('api_keys').set({ expires_at: Date.now() - 1 }).where('id', '=', key.id).execute();
    const refused = await call('GET', '/iot/developers/apps.json', bearer(key.token));
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toMatch(/API key "short-lived" expired on/);
  });

  it.each([
    [{}, 400, /name is required/],
    [{ name: '   ' }, 400, /name must be 1 to 64/],
    [{ name: 'x'.repeat(65) }, 400, /name must be 1 to 64/],
    [{ name: 'scoped', scope: 'admin' }, 400, /scope must be read or full/],
    [{ name: 'past', expires: Date.now() - 1000 }, 400, /expires must be in the future/],
    [{ name: 'garbage', expires: 'tomorrow' }, 400, /expires must be epoch milliseconds or an ISO 8601 date/],
  ])('refuses a key %j with %i', async (body, status, message) => {
    const response = await call('POST', '/iot/developers/keys.json', dev.auth, body);
    expect(response.statusCode).toBe(status);
    expect(response.json().message).toMatch(message);
  });

  it('refuses a second key of the same name in one account (409), not in another', async () => {
    await create({ name: 'twice' });
    const again = await call('POST', '/iot/developers/keys.json', dev.auth, { name: 'twice' });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/API key named "twice" already exists/);
    await create({ name: 'twice' }, other.auth);
  });

  it("revokes a key: it stops working at once; another account's key or an unknown one is 404", async () => {
    const key = await create({ name: 'to-revoke' });
    const theirs = await create({ name: 'theirs' }, other.auth);
    expect((await call('DELETE', `/iot/developers/keys.json?id=${theirs.id}`, dev.auth)).statusCode).toBe(404);
    expect((await call('GET', '/iot/developers/apps.json', bearer(theirs.token))).statusCode).toBe(200);
    const revoked = await call('DELETE', `/iot/developers/keys.json?id=${key.id}`, dev.auth);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: key.id, name: 'to-revoke' });
    const refused = await call('GET', '/iot/developers/apps.json', bearer(key.token));
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toMatch(/no API key of this account has this secret \(revoked\?\)/);
    expect((await call('DELETE', `/iot/developers/keys.json?id=${key.id}`, dev.auth)).statusCode).toBe(404);
    expect((await call('DELETE', '/iot/developers/keys.json', dev.auth)).json().message).toMatch(/id is required/);
    expect((await call('DELETE', '/iot/developers/keys.json?id=abc', dev.auth)).statusCode).toBe(400);
  });

  it("a key's secret under another account's email is refused; keys outlive a token regeneration and a password change", async () => {
    const key = await create({ name: 'survivor' });
    const swapped = Buffer.from(`${other.email}:${key.secret}`).toString('base64');
    expect((await call('GET', '/iot/developers/apps.json', bearer(swapped))).statusCode).toBe(401);
    expect((await call('POST', '/iot/developers/token.json', dev.auth)).statusCode).toBe(200);
    expect((await call('POST', '/iot/developers/updatePassword.json', dev.auth, { currentpwd: PASSWORD, newpwd: 'NewPass42', confirmpwd: 'NewPass42' })).statusCode).toBe(200);
    dev.auth = basic(dev.email, 'NewPass42');
    expect((await call('GET', '/iot/developers/apps.json', bearer(key.token))).statusCode).toBe(200);
  });

  it('records last_used at most once a minute, not on every request', async () => {
    const key = await create({ name: 'busy' });
    expect((await call('GET', '/iot/developers/apps.json', bearer(key.token))).statusCode).toBe(200);
    const first = (await app.context.storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at;
    expect(first).not.toBeNull();
    for (let i = 0; i < 3; i++) await call('GET', '/iot/developers/apps.json', bearer(key.token));
    const after = (await app.context.storage.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at;
    expect(after).toBe(first);
  });
});
