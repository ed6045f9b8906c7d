import { connect } from 'node:net';
import type { Socket } from 'node:net';

/** A raw client connection and everything it has received; `closed` resolves when the server hangs up. */
export interface RawClient {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

export function rawClient(port: number): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

/** Resolves with the milliseconds `promise` took, or rejects after `limitMs`. */
export async function timed(promise: Promise<unknown>, limitMs: number): Promise<number> {
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`not within ${limitMs} ms`)), limitMs))),
  ]).finally(() => clearTimeout(timer));
  return performance.now() - start;
}

/** Sends a complete GET on the connection and resolves with the response text once it is whole. */
export function get(client: RawClient, path: string, keepAlive = true): Promise<string> {
  const before = client.received().length;
  client.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`);
  return new Promise((resolve) => {
    const check = () => {
      const text = client.received().slice(before);
      const [head, body] = text.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head ?? '')?.[1];
      if (length !== undefined && body !== undefined && Buffer.byteLength(body) >= Number(length)) {
        client.socket.off('data', check);
        resolve(text);
      }
    };
    client.socket.on('data', check);
    check();
  });
}
