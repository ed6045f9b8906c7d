import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { installErrorRendering } from '../../src/http/error-rendering.js';
import { dashboardRoutes } from '../../src/http/routes/dashboard.js';
import type { Context } from '../../src/context.js';
import type { Server } from '../../src/http/server-types.js';

describe.each(dialects)('wrong methods and unknown paths (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
  });
  afterAll(() => app.close());

  it.each([
    ['PUT', '/iot/developers/apps.json', 'DELETE, GET, HEAD, POST'],
    ['DELETE', '/healthz', 'GET, HEAD'],
    ['PATCH', '/network/sigfox/uplink', 'POST'],
    ['POST', '/iot/developers/apps/12/modules.json', 'GET, HEAD'],
    ['POST', '/iot/developers/decode/', 'GET, HEAD'],
  ])('%s %s is a 405 naming the methods the path takes', async (method, url, allow) => {
    const response = await app.server.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.json()).toEqual({ statusCode: 405, error: 'Method Not Allowed', message: `${method} is not allowed on ${url}: use ${allow}` });
  });

  it('answers an unknown path with a JSON 404 whatever the method or Accept', async () => {
    for (const [method, accept] of [['GET', 'text/html'], ['POST', '*/*'], ['DELETE', 'application/json']] as const) {
      const response = await app.server.inject({ method, url: '/iot/nothing/here.json?x=1', headers: { accept } });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ statusCode: 404, error: 'Not Found', message: `no route for ${method} /iot/nothing/here.json` });
    }
  });
});

describe('unknown /iot paths and the dashboard', () => {
  let root: string;
  let server: Server;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'snsr-dashboard-'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>dashboard</title>');
    await mkdir(join(root, 'iot'));
    await writeFile(join(root, 'iot', 'leak.json'), '{"leaked":true}');
    await writeFile(join(root, 'logo.txt'), 'logo');
    server = Fastify().withTypeProvider() as unknown as Server;
    installErrorRendering(server);
    await dashboardRoutes(server, { log: pino({ level: 'silent' }) } as Context, root);
    await server.ready();
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('never serves a dashboard file or page under /iot, even when one exists there', async () => {
    for (const accept of ['text/html', '*/*']) {
      const response = await server.inject({ method: 'GET', url: '/iot/leak.json', headers: { accept } });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ statusCode: 404, message: 'no route for GET /iot/leak.json' });
    }
    const page = await server.inject({ method: 'GET', url: '/iot/developers/nothing', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^application\/json/);
  });

  it('serves the dashboard elsewhere, and its catch-all does not make every path a GET path', async () => {
    expect((await server.inject({ method: 'GET', url: '/logo.txt' })).body).toBe('logo');
    const wrong = await server.inject({ method: 'DELETE', url: '/logo.txt' });
    expect(wrong.statusCode).toBe(404);
  });
});
