import https from 'node:https';
import { KeepaliveClient } from './keepalive-client.js';

export interface Answer {
  /** HTTP status, or 0 when the request failed on the network. */
  status: number;
  body: string;
  /** Time from sending the request to the end of the answer, ms. */
  ms: number;
  error?: string;
}

/**
 * Posts Sigfox callbacks the way the Sigfox backend does: JSON bodies, Bearer token, over kept-alive
 * connections (one per request in flight). Plain HTTP goes through a lean client of its own, so the
 * load generator leaves the CPU to the server; HTTPS through node:https.
 */
export class SigfoxSender {
  private readonly target: URL;
  private readonly headers: Record<string, string>;
  private readonly plain: KeepaliveClient | undefined;
  private readonly agent: https.Agent | undefined;

  constructor(url: string, path: string, token: string, maxSockets: number) {
    this.target = new URL(path, url);
    this.headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (this.target.protocol === 'https:') this.agent = new https.Agent({ keepAlive: true, maxSockets });
    else this.plain = new KeepaliveClient(this.target, this.headers, maxSockets);
  }

  async post(body: object): Promise<Answer> {
    const payload = JSON.stringify(body);
    const start = performance.now();
    try {
      const response = this.plain ? await this.plain.post(payload) : await this.secure(payload);
      return { ...response, ms: performance.now() - start };
    } catch (error) {
      return { status: 0, body: '', ms: performance.now() - start, error: (error as Error).message };
    }
  }

  close(): void {
    this.plain?.close();
    this.agent?.destroy();
  }

  private secure(payload: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        this.target,
        { method: 'POST', agent: this.agent, headers: { ...this.headers, 'content-length': Buffer.byteLength(payload) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }
}
