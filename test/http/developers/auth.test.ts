import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

describe.each(dialects)('developer authentication (%s)', (dialect) => {
  let app: TestApp;
  let dev: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    dev = await createDeveloper(app);
  });
  afterAll(() => app.close());

  const get = (authorization?: string) =>
    app.server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: authorization ? { authorization } : {} });

  it.each([
    ['missing', undefined, /missing Authorization/],
    ['Basic undefined', 'Basic undefined', /base64|email:password/],
    ['Basic without colon', `Basic ${Buffer.from('nocolon').toString('base64')}`, /email:password/],
    ['Basic not base64', 'Basic ***', /not base64/],
    ['Bearer', 'Bearer abc', /Basic/],
    ['Basic alone', 'Basic', /Basic/],
  ])('answers 401 with a message for %s credentials', async (_name, header, message) => {
    const response = await get(header);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(message) });
  });

  it('answers 401 for a wrong password and 404 for an unknown account', async () => {
    expect((await get(basic(dev.email, 'Wrong1234'))).statusCode).toBe(401);
    const unknown = await get(basic('nobody@example.com', PASSWORD));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/nobody@example.com/);
  });

  it('accepts email:password, the account token, and any case of the email', async () => {
    expect((await get(dev.auth)).statusCode).toBe(200);
    expect((await get(`Basic ${dev.token}`)).statusCode).toBe(200);
    expect((await get(basic('DEV@Example.com', PASSWORD))).statusCode).toBe(200);
  });

  it('checks credentials on GET and POST /security/authentication with an empty 200', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const ok = await app.server.inject({ method, url: '/security/authentication', headers: { authorization: dev.auth } });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toBe('');
      const bad = await app.server.inject({ method, url: '/security/authentication', headers: { authorization: basic(dev.email, 'nope') } });
      expect(bad.statusCode).toBe(401);
    }
    expect((await app.server.inject({ method: 'GET', url: '/security/authentication' })).statusCode).toBe(401);
  });

  it('answers the legacy ?login=&pwd= with the account token as the bare body, usable after Basic', async () => {
    const response = await app.server.inject({ method: 'GET', url: `/security/authentication?login=${dev.email}&pwd=${PASSWORD}` });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(dev.token);
    expect(response.body).not.toMatch(/["\n]/);
    expect((await get(`Basic ${response.body}`)).statusCode).toBe(200);
    const wrong = await app.server.inject({ method: 'GET', url: `/security/authentication?login=${dev.email}&pwd=bad` });
    expect(wrong.statusCode).toBe(401);
    const missing = await app.server.inject({ method: 'GET', url: `/security/authentication?login=${dev.email}` });
    expect(missing.statusCode).toBe(401);
  });

  it('serves CORS for browser dashboards: echoes the origin, allows credentials and the headers', async () => {
    const response = await app.server.inject({
      method: 'OPTIONS',
      url: '/iot/developers/apps.json',
      headers: { origin: 'http://dash.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-snsr-device-key' },
    });
    expect(response.statusCode).toBeLessThan(300);
    expect(response.headers['access-control-allow-origin']).toBe('http://dash.example');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    expect(String(response.headers['access-control-allow-headers'])).toMatch(/x-snsr-device-key/);
    expect(String(response.headers['access-control-allow-methods'])).toMatch(/DELETE/);
  });

  it('regenerates the account token: the old one stops working', async () => {
    const other = await createDeveloper(app, 'regen@example.com');
    const account = await app.server.inject({ method: 'GET', url: '/iot/developers/account.json', headers: { authorization: other.auth } });
    expect(account.json()).toMatchObject({ email: 'regen@example.com', token: other.token });
    const regenerated = await app.server.inject({ method: 'POST', url: '/iot/developers/token.json', headers: { authorization: other.auth } });
    const { token } = regenerated.json();
    expect(token).not.toBe(other.token);
    expect((await get(`Basic ${other.token}`)).statusCode).toBe(401);
    expect((await get(`Basic ${token}`)).statusCode).toBe(200);
  });
});
