import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, refusedMessage } from './guarded-lookup.js';

export type SendOutcome =
  | { kind: 'delivered'; statusCode: number }
  | { kind: 'failed'; statusCode: number | null; error: string }
  /** Cut short by shutdown: not an attempt; the delivery goes back to the queue as it was. */
  | { kind: 'aborted' }
  /** Not written: the connection was ready only after `writeBy`. Not an attempt either. */
  | { kind: 'fenced' };

export interface SendControl {
  signal?: AbortSignal;
  /**
   * `performance.now()` after which the request must not be written: checked when the connection is
   * ready, in the same synchronous step as the write, so nothing (no I/O, no await) comes between.
   */
  writeBy?: number;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  userAgent: string;
  /** Response bytes read at most; a receiver streaming more is cut off. */
  maxResponseBytes?: number;
}

const EXCERPT_BYTES = 200;

/** One line of printable text from the start of an error response, for the delivery log. */
const excerpt = (bytes: Buffer) =>
  bytes
    .toString('utf8')
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim()
    .slice(0, EXCERPT_BYTES);

/**
 * POSTs callback bodies: a total time limit per request, redirects never followed, at most
 * `maxResponseBytes` of the answer read, and private targets refused (IP literals here, names in
 * the DNS lookup the socket connects with). Keep-alive agents reuse connections to busy receivers.
 */
export class CallbackSender {
  private readonly http = new http.Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo', timeout: 30_000 });
  private readonly https = new https.Agent({ keepAlive: true, maxFreeSockets: 64, scheduling: 'lifo', timeout: 30_000 });
  private readonly lookup;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: SenderOptions) {
    this.lookup = guardedLookup(options.allowPrivate);
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  }

  async send(url: string, body: string, headers: Record<string, string>, control: SendControl = {}): Promise<SendOutcome> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { kind: 'failed', statusCode: null, error: `invalid callback URL ${JSON.stringify(url)}` };
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return { kind: 'failed', statusCode: null, error: `callback URL must be http or https, got ${target.protocol}` };
    }
    // An IP literal never goes through DNS, so the lookup guard would not see it.
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const refused = !this.options.allowPrivate && isIP(host) ? refusedMessage(host) : undefined;
    if (refused) return { kind: 'failed', statusCode: null, error: refused };
    const first = await this.attempt(target, body, headers, control);
    // A kept-alive socket the receiver closed while idle fails at once; that is not the receiver's
    // answer, so one fresh connection is tried before counting it.
    return first.staleSocket ? (await this.attempt(target, body, headers, control)).outcome : first.outcome;
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private attempt(target: URL, body: string, headers: Record<string, string>, { signal, writeBy }: SendControl): Promise<{ outcome: SendOutcome; staleSocket?: boolean }> {
    const { timeoutMs, userAgent } = this.options;
    return new Promise((resolve) => {
      let statusCode: number | undefined;
      let read = 0;
      const head: Buffer[] = [];
      let settled = false;
      const settle = (outcome: SendOutcome, staleSocket = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve({ outcome, staleSocket });
      };
      const answered = (): SendOutcome => {
        const code = statusCode!;
        if (code >= 200 && code < 300) return { kind: 'delivered', statusCode: code };
        const text = excerpt(Buffer.concat(head));
        const redirect = code >= 300 && code < 400 ? ' (redirects are not followed)' : '';
        return { kind: 'failed', statusCode: code, error: `HTTP ${code}${redirect}${text ? `: ${text}` : ''}` };
      };

      const client = target.protocol === 'https:' ? https : http;
      const request = client.request(target, {
        method: 'POST',
        agent: target.protocol === 'https:' ? this.https : this.http,
        lookup: this.lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': userAgent,
        },
      });
      const timer = setTimeout(() => {
        // Once the status line is in, the receiver has decided; a body that then stalls changes nothing.
        settle(statusCode === undefined ? { kind: 'failed', statusCode: null, error: `timeout after ${timeoutMs} ms` } : answered());
        request.destroy();
      }, timeoutMs);
      const onAbort = () => {
        settle({ kind: 'aborted' });
        request.destroy();
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      request.on('response', (response) => {
        statusCode = response.statusCode ?? 0;
        response.on('data', (chunk: Buffer) => {
          if (read < EXCERPT_BYTES) head.push(chunk.subarray(0, EXCERPT_BYTES - read));
          read += chunk.length;
          if (read > this.maxResponseBytes) {
            settle(answered());
            request.destroy();
          }
        });
        response.on('end', () => settle(answered()));
        response.on('error', () => settle(answered()));
        response.on('close', () => settle(answered()));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (statusCode !== undefined) return settle(answered());
        const stale = request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        settle({ kind: 'failed', statusCode: null, error: error.message || String(error.code) }, stale);
      });
      // Headers and body go out in one write once the connection is ready (a kept-alive socket at
      // once, a new one after connecting and the TLS handshake), right after the last fence check.
      const write = () => {
        if (settled) return;
        if (writeBy !== undefined && performance.now() > writeBy) {
          settle({ kind: 'fenced' });
          request.destroy();
          return;
        }
        request.end(body);
      };
      request.once('socket', (socket) => {
        if (request.reusedSocket) write();
        else if (target.protocol === 'https:') socket.once('secureConnect', write);
        else if (socket.connecting) socket.once('connect', write);
        else write();
      });
    });
  }
}
