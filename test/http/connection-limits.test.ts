import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { get, rawClient, timed } from '../helpers/sockets.js';
import type { RawClient } from '../helpers/sockets.js';
import { derivedMaxConnections, fileDescriptorLimit } from '../../src/http/plugins/connection-limits.js';

/** Deadlines are enforced within Node's checking period (1 s) of expiring; this much slack on top for a loaded machine. */
const SLACK_MS = 2500;

describe('connection limits on real sockets', () => {
  let app: TestApp | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.socket.destroy();
    await app?.close();
    app = undefined;
  });

  async function listen(env: Record<string, string>): Promise<number> {
    app = await startApp('sqlite', env);
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    return (app.server.server.address() as AddressInfo).port;
  }
  const client = async (port: number) => {
    const opened = await rawClient(port);
    clients.push(opened);
    return opened;
  };

  it('cuts a body that trickles in with 408 once the request deadline passes', async () => {
    const port = await listen({ SNSR_REQUEST_TIMEOUT_MS: '1500', SNSR_HEADERS_TIMEOUT_MS: '1000' });
    const slow = await client(port);
    slow.socket.write('POST /network/sigfox/uplink HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer network-token\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
    const trickle = setInterval(() => !slow.socket.destroyed && slow.socket.write('{'), 100);
    try {
      const elapsed = await timed(slow.closed, 1500 + SLACK_MS);
      expect(elapsed).toBeGreaterThanOrEqual(1400);
      expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('cuts headers that trickle in once the headers deadline passes', async () => {
    const port = await listen({ SNSR_HEADERS_TIMEOUT_MS: '1000' });
    const slow = await client(port);
    slow.socket.write('GET /healthz HTTP/1.1\r\n');
    const trickle = setInterval(() => !slow.socket.destroyed && slow.socket.write('X-A: b\r\n'), 100);
    try {
      const elapsed = await timed(slow.closed, 1000 + SLACK_MS);
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(slow.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const port = await listen({ SNSR_KEEP_ALIVE_TIMEOUT_MS: '500' });
    const idle = await client(port);
    expect(await get(idle, '/healthz')).toMatch(/^HTTP\/1\.1 200 .*keep-alive/is);
    const elapsed = await timed(idle.closed, 500 + SLACK_MS);
    expect(elapsed).toBeGreaterThanOrEqual(400);
  });

  it('answers a new client within a second while 1,500 idle connections are open', async () => {
    const port = await listen({});
    const idle = await Promise.all(Array.from({ length: 1500 }, () => client(port)));
    expect(idle).toHaveLength(1500);
    const fresh = await client(port);
    const elapsed = await timed(get(fresh, '/healthz', false), 1000);
    expect(elapsed).toBeLessThan(1000);
    expect(fresh.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes connections beyond the maximum at once and keeps serving the open ones', async () => {
    const port = await listen({ SNSR_MAX_CONNECTIONS: '20' });
    const open = [];
    for (let i = 0; i < 20; i++) open.push(await client(port));
    // The server counts a connection once it accepts it; wait until it has all 20.
    await expect.poll(() => new Promise<number>((resolve) => app!.server.server.getConnections((_e, n) => resolve(n)))).toBe(20);
    const refused = await client(port);
    await timed(refused.closed, 1000);
    expect(refused.received()).toBe('');
    expect(await get(open[0]!, '/healthz')).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the connection maximum by default', () => {
  it('is the soft limit on open files less a reserve, read from the system', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'snsr-limits-'));
    try {
      const file = join(dir, 'limits');
      await writeFile(
        file,
        'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                1048576              files     \n',
      );
      expect(fileDescriptorLimit(file)).toBe(20000);
      expect(derivedMaxConnections(20000)).toBe(19744);
      expect(derivedMaxConnections(100)).toBe(64);
      expect(derivedMaxConnections(undefined)).toBe(1024);
      expect(fileDescriptorLimit(join(dir, 'missing'))).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('load shedding', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('answers 503 with Retry-After while the event loop lags, and still answers /healthz', async () => {
    app = await startApp('sqlite', { SNSR_MAX_EVENT_LOOP_DELAY_MS: '100' });
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const lag = () => (app!.server as unknown as { memoryUsage(): { eventLoopDelay: number } }).memoryUsage().eventLoopDelay;
    // Shedding starts two samples after listening. Then the loop is kept busy, yielding only
    // briefly between blocks as a saturated server does, until a sample sees the lag.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let i = 0; i < 100 && lag() <= 100; i++) {
      const end = Date.now() + 300;
      while (Date.now() < end); // blocks the event loop on purpose
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(lag()).toBeGreaterThan(100);
    const shed = await app.server.inject({ method: 'GET', url: '/iot/developers/apps.json' });
    expect(shed.statusCode).toBe(503);
    expect(shed.headers['retry-after']).toBe('2');
    expect(shed.json()).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'the server is overloaded (its event loop lags more than 100 ms): retry after 2 s' });
    const health = await app.server.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
  });

  it('does not shed before the server listens (start-up work is not load)', async () => {
    app = await startApp('sqlite', { SNSR_MAX_EVENT_LOOP_DELAY_MS: '1' });
    const end = Date.now() + 500;
    while (Date.now() < end); // blocks the event loop on purpose
    await new Promise((resolve) => setTimeout(resolve, 300));
    const response = await app.server.inject({ method: 'GET', url: '/iot/developers/apps.json' });
    expect(response.statusCode).toBe(401);
  });
});
