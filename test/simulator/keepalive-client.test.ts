import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeepaliveClient } from '../../src/simulator/keepalive-client.js';

describe('the load generator HTTP client', () => {
  let server: http.Server;
  let base: URL;
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const sockets = new Set<unknown>();

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      sockets.add(request.socket);
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, headers: request.headers, body });
        const mode = new URL(request.url ?? '/', 'http://x').searchParams.get('mode');
        if (mode === 'chunked') {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"part":');
          response.end('"two"}');
        } else if (mode === 'empty') {
          response.writeHead(204).end();
        } else if (mode === 'close') {
          response.writeHead(200, { connection: 'close', 'content-length': '2' }).end('ok');
        } else if (mode === 'drop') {
          request.socket.destroy();
        } else {
          const text = JSON.stringify({ echo: JSON.parse(body) });
          response.writeHead(401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (query = '', size = 2) => new KeepaliveClient(new URL(`/cb${query}`, base), { authorization: 'Bearer t', 'content-type': 'application/json' }, size);

  it('posts the body with its headers and reads a content-length answer, reusing connections', async () => {
    const c = client();
    sockets.clear();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => c.post(JSON.stringify({ i, text: 'é' }))));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(401));
    expect(answers.map((a) => JSON.parse(a.body).echo.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/cb', headers: { authorization: 'Bearer t', 'content-type': 'application/json' } });
    expect(sockets.size).toBe(2);
    c.close();
  });

  it('reads chunked answers and bodiless 204s', async () => {
    const chunked = client('?mode=chunked');
    expect(await chunked.post('{}')).toEqual({ status: 200, body: '{"part":"two"}' });
    expect(await chunked.post('{}')).toEqual({ status: 200, body: '{"part":"two"}' });
    chunked.close();
    const empty = client('?mode=empty');
    expect(await empty.post('{}')).toEqual({ status: 204, body: '' });
    expect(await empty.post('{}')).toEqual({ status: 204, body: '' });
    empty.close();
  });

  it('reconnects after the server closes, and fails a request whose connection drops', async () => {
    const closing = client('?mode=close', 1);
    expect(await closing.post('{}')).toEqual({ status: 200, body: 'ok' });
    expect(await closing.post('{}')).toEqual({ status: 200, body: 'ok' });
    closing.close();
    const dropping = client('?mode=drop', 1);
    await expect(dropping.post('{}')).rejects.toThrow(/closed|reset/);
    await expect(dropping.post('{}')).rejects.toThrow(/closed|reset/);
    dropping.close();
  });
});
