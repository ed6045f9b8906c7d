import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallbackSender } from '../../src/delivery/callback-sender.js';
import { guardedLookup } from '../../src/delivery/guarded-lookup.js';

const servers: Server[] = [];
const senders: CallbackSender[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const sender of senders.splice(0)) sender.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(listener: RequestListener): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer(listener);
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`, server, connections: () => connections };
}

function sender(options: Partial<ConstructorParameters<typeof CallbackSender>[0]> = {}): CallbackSender {
  const created = new CallbackSender({ timeoutMs: 3000, allowPrivate: true, userAgent: 'snsr/test', ...options });
  senders.push(created);
  return created;
}

describe('CallbackSender', () => {
  it('stops reading an endless response at the cap instead of waiting for the timeout', async () => {
    const target = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      const timer = setInterval(() => response.write('x'.repeat(1024)), 1);
      response.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const outcome = await sender({ maxResponseBytes: 16 * 1024 }).send(target.url, '{}', {});
    expect(Date.now() - started).toBeLessThan(1500);
    expect(outcome).toEqual({ kind: 'failed', statusCode: 500, error: `HTTP 500: ${'x'.repeat(200)}` });
  });

  it('reuses one connection for successive callbacks to a receiver', async () => {
    const target = await serve((_request, response) => response.end('ok'));
    const client = sender();
    for (let i = 0; i < 3; i++) expect(await client.send(target.url, '{}', {})).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(target.connections()).toBe(1);
  });

  it('tries a fresh connection once when a kept-alive one turns out closed', async () => {
    const served = new WeakSet<object>();
    let requests = 0;
    const target = await serve((request, response) => {
      requests++;
      // The second request on a connection finds it closed, as after a receiver's idle timeout.
      if (served.has(request.socket)) return request.socket.destroy();
      served.add(request.socket);
      response.end();
    });
    const client = sender();
    expect(await client.send(target.url, '{}', {})).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(await client.send(target.url, '{}', {})).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(target.connections()).toBe(2);
    expect(requests).toBe(3);
  });

  it('writes nothing once past `writeBy`, checked when the connection is ready, fresh or kept alive', async () => {
    let requests = 0;
    const target = await serve((_request, response) => {
      requests++;
      response.end();
    });
    const client = sender();
    // Already past: the connection is opened, but no request goes out on it.
    expect(await client.send(target.url, '{}', {}, { writeBy: performance.now() - 1 })).toEqual({ kind: 'fenced' });
    expect(requests).toBe(0);
    expect(await client.send(target.url, '{}', {}, { writeBy: performance.now() + 60_000 })).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(requests).toBe(1);
    // In time when the send is asked for, past by the time the (kept-alive) socket is handed over,
    // as when the process stalls in between: the check at the write is the one that counts.
    const pending = client.send(target.url, '{}', {}, { writeBy: performance.now() + 5000 });
    const now = performance.now.bind(performance);
    vi.spyOn(performance, 'now').mockImplementation(() => now() + 60_000);
    expect(await pending).toEqual({ kind: 'fenced' });
    vi.restoreAllMocks();
    expect(await client.send(target.url, '{}', {}, { writeBy: performance.now() + 60_000 })).toEqual({ kind: 'delivered', statusCode: 200 });
    expect(requests).toBe(2);
  });

  it('sends the body with its length, JSON type, user agent and the given headers', async () => {
    let seen: { headers: Record<string, unknown>; body: string; method?: string } | undefined;
    const target = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen = { headers: request.headers, body, method: request.method };
        response.end();
      });
    });
    await sender().send(target.url, '{"é":1}', { 'x-snsr-delivery': 'abc' });
    expect(seen).toMatchObject({
      method: 'POST',
      body: '{"é":1}',
      headers: { 'content-type': 'application/json', 'content-length': '8', 'user-agent': 'snsr/test', 'x-snsr-delivery': 'abc' },
    });
  });

  it('answers aborted, not failed, when cut off by shutdown', async () => {
    const target = await serve(() => undefined); // never answers
    const controller = new AbortController();
    const pending = sender().send(target.url, '{}', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toEqual({ kind: 'aborted' });
  });

  it.each([
    ['not a url', /invalid callback URL/],
    ['ftp://example.com/x', /must be http or https/],
  ])('fails %s without a request', async (url, error) => {
    const outcome = await sender().send(url, '{}', {});
    expect(outcome.kind).toBe('failed');
    expect(outcome.kind === 'failed' && outcome.error).toMatch(error);
  });

  it('refuses private literals, IPv6 included, unless allowed', async () => {
    const strict = sender({ allowPrivate: false });
    for (const host of ['10.1.2.3', '169.254.169.254', '[::1]', '[fe80::1]', '192.168.0.10']) {
      const outcome = await strict.send(`http://${host}/cb`, '{}', {});
      const address = host.replace(/^\[|\]$/g, '');
      expect(outcome, host).toEqual({ kind: 'failed', statusCode: null, error: expect.stringMatching(new RegExp(`^refused: ${address} is not a public address \\(\\w+\\)$`)) });
    }
  });
});

describe('guardedLookup', () => {
  const lookup = (allow: boolean, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(allow)('localhost', { all }, (error, address, family) => resolve({ error, address, ...(family !== undefined && { family }) })),
    );

  it('refuses a name that resolves only to loopback, in both lookup forms', async () => {
    for (const all of [false, true]) {
      const { error } = await lookup(false, all);
      expect(error?.message).toMatch(/^refused: (127\.0\.0\.1|::1) is not a public address \(loopback\)$/);
    }
  });

  it('passes the resolution through when private targets are allowed', async () => {
    const single = await lookup(true, false);
    expect(single.error).toBeNull();
    expect(single.address).toMatch(/^(127\.0\.0\.1|::1)$/);
    expect([4, 6]).toContain(single.family);
    const all = await lookup(true, true);
    expect(Array.isArray(all.address) && all.address.length).toBeGreaterThan(0);
  });
});
