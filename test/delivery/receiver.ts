import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** the raw body, exactly as sent (signatures are over these bytes) */
  body: string;
  at: number;
  /** when the answer was written (`Date.now()`); unset while the request is held open */
  answeredAt?: number;
}

/**
 * How to answer the n-th request (0-based): a status, held open until `until` settles (if given)
 * and then for `delayMs` (if given).
 */
export type Behaviour = (
  n: number,
  request: Received,
) => { status: number; delayMs?: number; until?: Promise<unknown>; body?: string; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** resolves once `count` requests have arrived */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (a random port), recording every request it gets. */
export async function startReceiver(behaviour: Behaviour = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const pending = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const n = received.length;
      received.push(entry);
      for (const wake of waiters.splice(0)) wake();
      const answer = behaviour(n, entry);
      pending.add(response);
      const reply = () => {
        pending.delete(response);
        if (response.destroyed) return;
        entry.answeredAt = Date.now();
        response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '');
      };
      const delayed = () => (answer.delayMs ? setTimeout(reply, answer.delayMs) : reply());
      if (answer.until) void answer.until.finally(delayed);
      else delayed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return false;
          clearTimeout(timer);
          resolve(received.slice());
          return true;
        };
        const timer = setTimeout(() => {
          const index = waiters.indexOf(wake);
          if (index >= 0) waiters.splice(index, 1);
          reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`));
        }, timeoutMs);
        const wake = () => {
          if (!check()) waiters.push(wake);
        };
        wake();
      }),
    close: async () => {
      for (const response of pending) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
