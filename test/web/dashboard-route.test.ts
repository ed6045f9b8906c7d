import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { installErrorRendering } from '../../src/http/error-rendering.js';
import { DASHBOARD_ROOT, dashboardRoutes } from '../../src/http/routes/dashboard.js';
import type { Server } from '../../src/http/server-types.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const INDEX = '<!doctype html><title>dashboard fixture</title>';

/** A server with the error rendering, one API route and the dashboard on `root`; `logged` collects its log lines. */
async function serve(root: string): Promise<{ app: Server; context: Context; logged: string[] }> {
  const logged: string[] = [];
  const log = pino({ level: 'warn' }, new Writable({ write: (chunk: Buffer, _encoding, done) => (logged.push(chunk.toString()), done()) }));
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: 'sqlite::memory:', SNSR_SECRET: 'test-secret' }), { log });
  const app = Fastify({ loggerInstance: log as FastifyBaseLogger }).withTypeProvider<TypeBoxTypeProvider>() as Server;
  installErrorRendering(app);
  app.get('/iot/developers/apps.json', async () => []);
  await app.register(async (scope) => dashboardRoutes(scope, context, root));
  await app.ready();
  return { app, context, logged };
}

describe('dashboard serving (built files, SPA fallback, API 404s)', () => {
  const root = mkdtempSync(join(tmpdir(), 'snsr-dashboard-'));
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX);
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log("dashboard")');
    writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(tmpdir(), 'snsr-dashboard-secret.txt'), 'outside the root');
    server = await serve(root);
  });
  afterAll(async () => {
    await server.app.close();
    await server.context.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps the JSON 404 for API paths, unknown files and non-GET methods', async () => {
    for (const [method, url, headers] of [
      ['GET', '/iot/developers/nothing.json', HTML],
      ['GET', '/iot/devices/msgs/nope', HTML],
      ['GET', '/security/whatever', HTML],
      ['GET', '/assets/missing-1234.js', HTML],
      ['GET', '/modules/C0FE', { accept: 'application/json' }],
      ['GET', '/modules/C0FE', {}],
      ['POST', '/', HTML],
      ['DELETE', '/modules', HTML],
    ] as const) {
      const response = await server.app.inject({ method, url, headers });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.headers['content-type'], `${method} ${url}`).toMatch(/^application\/json/);
      expect(response.json(), `${method} ${url}`).toEqual({ statusCode: 404, error: 'Not Found', message: expect.stringMatching(/^no route for /) });
    }
  });

  it('serves index.html at / with a strict CSP and no caching', async () => {
    const response = await server.app.inject({ url: '/', headers: HTML });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toBe(INDEX);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toMatch(/default-src 'self'.*script-src 'self'.*frame-ancestors 'none'/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers index.html for any other page a browser navigates to, so dashboard URLs survive a reload', async () => {
    for (const url of ['/account', '/apps/12', '/modules/C0FE', '/decoder?frame=00000046&protocol=UDM23', '/no/such/page']) {
      const response = await server.app.inject({ url, headers: HTML });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toBe(INDEX);
    }
  });

  it("serves the dashboard at the original portal's activation page, /dashboards/developer.html, whatever the Accept", async () => {
    for (const headers of [HTML, {}]) {
      const response = await server.app.inject({ url: '/dashboards/developer.html', headers });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(INDEX);
      expect(response.headers['content-security-policy']).toMatch(/default-src 'self'/);
    }
    expect((await server.app.inject({ url: '/dashboards/other.html', headers: HTML })).statusCode).toBe(404);
  });

  it('serves hashed assets as immutable and other files with revalidation', async () => {
    const asset = await server.app.inject({ url: '/assets/index-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.body).toBe('console.log("dashboard")');
    const icon = await server.app.inject({ url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('serves files built after the server started (a rebuild needs no restart)', async () => {
    writeFileSync(join(root, 'assets', 'index-later.js'), 'later()');
    const response = await server.app.inject({ url: '/assets/index-later.js' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('later()');
  });

  it('never serves a file outside the build directory', async () => {
    for (const url of ['/..%2Fsnsr-dashboard-secret.txt', '/assets/..%2F..%2Fsnsr-dashboard-secret.txt', '/%2e%2e/snsr-dashboard-secret.txt']) {
      const response = await server.app.inject({ url, headers: HTML });
      expect(response.body, url).not.toContain('outside the root');
      expect(response.statusCode, url).toBe(404);
    }
    // Broken percent-encoding is refused by the router before any file is looked at.
    const malformed = await server.app.inject({ url: '/%E0%A4%A.txt', headers: HTML });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('leaves the API routes alone', async () => {
    const response = await server.app.inject({ url: '/iot/developers/apps.json', headers: HTML });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('starts without a build, logs a warning, and says so at /', async () => {
    const missing = await serve(join(root, 'not-built'));
    try {
      expect(missing.logged.join('')).toMatch(/dashboard is not built/);
      const response = await missing.app.inject({ url: '/', headers: HTML });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ statusCode: 404, error: 'Not Found', message: expect.stringMatching(/dashboard is not built.*npm run build/) });
      expect((await missing.app.inject({ url: '/iot/developers/apps.json' })).statusCode).toBe(200);
    } finally {
      await missing.app.close();
      await missing.context.close();
    }
  });
});

// The dashboard reads no storage: one dialect is enough to check it sits beside the real API.
describe('dashboard in the real app', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp('sqlite');
  });
  afterAll(async () => app.close());

  it('keeps the API, its JSON 404s, the API reference and /healthz', async () => {
    const unknown = await app.server.inject({ url: '/iot/developers/nothing.json', headers: HTML });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    const unauthorized = await app.server.inject({ url: '/iot/developers/apps.json', headers: HTML });
    expect(unauthorized.statusCode).toBe(401);
    expect((await app.server.inject({ url: '/healthz' })).statusCode).toBe(200);
    const openapi = await app.server.inject({ url: '/openapi.json', headers: HTML });
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json()).toHaveProperty('openapi');
    expect((await app.server.inject({ url: '/docs', headers: HTML })).statusCode).toBeLessThan(400);
  });

  it('serves the built dashboard at / and on its pages (`npm test` builds it first)', async () => {
    const response = await app.server.inject({ url: '/modules/C0FE', headers: HTML });
    expect(DASHBOARD_ROOT).toMatch(/web[/\\]dist[/\\]$/);
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/<title>snsr dashboard<\/title>/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(response.body)?.[1];
    expect(script).toBeDefined();
    const asset = await app.server.inject({ url: script! });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
  });
});
