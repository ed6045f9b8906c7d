import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';
import type { Server } from '../../src/http/server-types.js';
import { dialects } from '../helpers/database.js';
import { basic, importCatalog, PASSWORD, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;

describe.each(dialects)('failed-authentication limits and request quotas (%s)', (dialect) => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const signIn = (server: Server, email: string, password: string, address = '203.0.113.7') =>
    server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: { authorization: basic(email, password) }, remoteAddress: address });

  it('answers 429 with Retry-After once an account has 10 wrong passwords, right password included, while another account signs in', async () => {
    app = await startApp(dialect);
    const [victim, other] = [unique('victim'), unique('other')];
    await app.context.accounts.create(victim, PASSWORD);
    await app.context.accounts.create(other, PASSWORD);
    for (let i = 0; i < 10; i++) expect((await signIn(app.server, victim, `wrong-${i}`)).statusCode).toBe(401);
    for (const password of ['wrong-again', PASSWORD]) {
      const blocked = await signIn(app.server, victim, password);
      expect(blocked.statusCode).toBe(429);
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expect(blocked.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: `too many failed attempts for ${victim}: retry after ${retryAfter} s` });
    }
    expect((await signIn(app.server, other, PASSWORD)).statusCode).toBe(200);
  });

  it('limits wrong module keys at crc.json per serial', async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const token = (sn: string, key: string) => app!.server.inject({ method: 'GET', url: `/iot/devices/crc.json?sn=${sn}&key=${key}` });
    for (let i = 0; i < 20; i++) expect((await token('C0FE', `0000000${i % 10}`)).statusCode).toBe(401);
    const blocked = await token('C0FE', '1A2B3C4D');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toMatch(/^too many failed attempts for module C0FE: retry after \d+ s$/);
    expect(blocked.headers['retry-after']).toMatch(/^\d+$/);
    expect((await token('BEEF', 'DEADBEEF')).statusCode).toBe(200);
  });

  it('limits failures per client address across accounts; X-Forwarded-For counts only behind a trusted proxy', async () => {
    for (const trusted of [false, true]) {
      app = await startApp(dialect, { SNSR_AUTH_FAILURES_PER_ADDRESS: '5', SNSR_TRUST_PROXY: String(trusted) });
      const real = unique('real');
      await app.context.accounts.create(real, PASSWORD);
      const from = (address: string, email: string, password: string) =>
        app!.server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: { authorization: basic(email, password), 'x-forwarded-for': address }, remoteAddress: '10.0.0.1' });
      for (let i = 0; i < 5; i++) expect((await from('198.51.100.1', unique(`nobody${i}`), 'x')).statusCode).toBe(404);
      const blocked = await from('198.51.100.1', real, PASSWORD);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().message).toMatch(new RegExp(`^too many failed attempts from ${trusted ? '198\\.51\\.100\\.1' : '10\\.0\\.0\\.1'}: retry after \\d+ s$`));
      // Another client behind the same proxy: its own address only when the proxy is trusted.
      expect((await from('198.51.100.2', real, PASSWORD)).statusCode).toBe(trusted ? 200 : 429);
      await app.close();
      app = undefined;
    }
  });

  it('keeps a per-minute quota per developer credential, with rate-limit headers', async () => {
    app = await startApp(dialect, { SNSR_DEVELOPER_REQUESTS_PER_MINUTE: '3' });
    const [one, two] = [unique('one'), unique('two')];
    await app.context.accounts.create(one, PASSWORD);
    await app.context.accounts.create(two, PASSWORD);
    for (let i = 0; i < 3; i++) {
      const response = await signIn(app.server, one, PASSWORD);
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe('3');
      expect(response.headers['x-ratelimit-remaining']).toBe(String(2 - i));
    }
    const limited = await signIn(app.server, one, PASSWORD);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^too many requests: this credential may make 3 a minute; retry after \d+ s$/) });
    expect((await signIn(app.server, two, PASSWORD)).statusCode).toBe(200);
  });

  it('keeps a per-minute quota per module on device routes', async () => {
    app = await startApp(dialect, { SNSR_DEVICE_REQUESTS_PER_MINUTE: '2' });
    await importCatalog(app);
    const tokenOf = async (sn: string, key: string) => (await app!.server.inject({ method: 'GET', url: `/iot/devices/crc.json?sn=${sn}&key=${key}` })).body;
    const history = (token: string) => app!.server.inject({ method: 'GET', url: '/iot/devices/msgs/history.json', headers: { 'x-snsr-device-key': token } });
    const token = await tokenOf('C0FE', '1A2B3C4D');
    expect((await history(token)).statusCode).toBe(200);
    expect((await history(token)).statusCode).toBe(200);
    const limited = await history(token);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['x-ratelimit-limit']).toBe('2');
    expect((await history(await tokenOf('BEEF', 'DEADBEEF'))).statusCode).toBe(200);
  });
});

/** A second snsr on the same database: its own Fastify, plugins and memory, as another process has. */
async function secondServer(first: TestApp, env: Record<string, string>): Promise<{ server: Server; close(): Promise<void> }> {
  const config = loadConfig({ ...env, SNSR_SECRET: 'test-secret', SNSR_DATABASE_URL: first.context.config.databaseUrl });
  const context = await createContext(config, { log: pino({ level: 'silent' }), migrate: false });
  const server = await buildServer(context);
  await server.ready();
  return { server, close: async () => (await server.close(), await context.close()) };
}

describe('failed-authentication limits shared by processes', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const shared: [string, 'postgres' | 'sqlite', Record<string, string>][] = [
    ...(dialects.includes('postgres') ? [['PostgreSQL without Redis', 'postgres', {}] as [string, 'postgres', Record<string, string>]] : []),
    ['Redis', 'sqlite', { SNSR_REDIS_URL: 'redis://127.0.0.1:6379' }],
  ];

  it.each(shared)('count into one window through %s', async (_name, dialect, env) => {
    app = await startApp(dialect, env);
    const other = await secondServer(app, env);
    try {
      const email = unique('shared');
      await app.context.accounts.create(email, PASSWORD);
      const attempt = (server: Server, password: string) =>
        server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: { authorization: basic(email, password) }, remoteAddress: '203.0.113.9' });
      for (let i = 0; i < 5; i++) {
        expect((await attempt(app.server, 'wrong')).statusCode).toBe(401);
        expect((await attempt(other.server, 'wrong')).statusCode).toBe(401);
      }
      // Ten failures in all, five in each process: both refuse now.
      expect((await attempt(app.server, PASSWORD)).statusCode).toBe(429);
      expect((await attempt(other.server, PASSWORD)).statusCode).toBe(429);
    } finally {
      await other.close();
    }
  });
});
