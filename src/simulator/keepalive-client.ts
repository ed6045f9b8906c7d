import net from 'node:net';

export interface RawResponse {
  status: number;
  body: string;
}

interface Pending {
  head: string;
  payload: Buffer;
  resolve: (response: RawResponse) => void;
  reject: (error: Error) => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One kept-alive HTTP/1.1 connection carrying one request at a time. The load generator must cost
 * the machine far less than the server it measures; node:http's client spends several times what
 * this needs per request, which on a two-core machine is taken from the server.
 */
class Connection {
  private socket: net.Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private current: Pending | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly onIdle: (connection: Connection) => void,
  ) {}

  send(request: Pending): void {
    this.current = request;
    const socket = this.socket ?? this.connect();
    socket.write(request.head);
    socket.write(request.payload);
  }

  close(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
  }

  private connect(): net.Socket {
    const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
    // Events of a socket this connection has since replaced are ignored.
    socket.on('data', (chunk: Buffer) => socket === this.socket && this.receive(chunk));
    socket.on('error', (error) => socket === this.socket && this.fail(error));
    socket.on('close', () => socket === this.socket && this.fail(new Error('connection closed by the server')));
    this.socket = socket;
    return socket;
  }

  private fail(error: Error): void {
    this.close();
    this.buffer = Buffer.alloc(0);
    const current = this.current;
    this.current = undefined;
    if (current) {
      current.reject(error);
      this.onIdle(this);
    }
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf(HEAD_END);
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(head[0].split(' ')[1]);
    const headers = new Map(head.slice(1).map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const start = end + HEAD_END.length;
    let body: Buffer | undefined;
    let rest = start;
    if (headers.get('transfer-encoding')?.toLowerCase().includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const line = this.buffer.indexOf('\r\n', rest);
        if (line < 0) return;
        const size = parseInt(this.buffer.subarray(rest, line).toString('latin1'), 16);
        if (this.buffer.length < line + 2 + size + 2) return;
        if (size === 0) {
          rest = line + 4;
          break;
        }
        parts.push(this.buffer.subarray(line + 2, line + 2 + size));
        rest = line + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers.get('content-length') ?? 0);
      if (this.buffer.length < start + length) return;
      body = this.buffer.subarray(start, start + length);
      rest = start + length;
    }
    this.buffer = this.buffer.subarray(rest);
    const current = this.current;
    this.current = undefined;
    if (headers.get('connection')?.toLowerCase() === 'close') this.close();
    current?.resolve({ status, body: body.toString() });
    this.onIdle(this);
  }
}

/** POSTs JSON over up to `size` kept-alive connections; requests beyond wait for a free one. */
export class KeepaliveClient {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];
  private readonly waiting: Pending[] = [];
  private readonly host: string;
  private readonly port: number;
  private readonly path: string;

  constructor(
    url: URL,
    private readonly headers: Record<string, string>,
    private readonly size: number,
  ) {
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port || 80);
    this.path = `${url.pathname}${url.search}`;
  }

  post(body: string): Promise<RawResponse> {
    const payload = Buffer.from(body);
    const lines = [`POST ${this.path} HTTP/1.1`, `Host: ${this.host}:${this.port}`, `Content-Length: ${payload.length}`];
    for (const [name, value] of Object.entries(this.headers)) lines.push(`${name}: ${value}`);
    return new Promise((resolve, reject) => {
      const request = { head: `${lines.join('\r\n')}\r\n\r\n`, payload, resolve, reject };
      const connection = this.idle.pop() ?? (this.all.length < this.size ? this.open() : undefined);
      if (connection) connection.send(request);
      else this.waiting.push(request);
    });
  }

  close(): void {
    for (const connection of this.all) connection.close();
  }

  private open(): Connection {
    const connection = new Connection(this.host, this.port, (free) => {
      const next = this.waiting.shift();
      if (next) free.send(next);
      else this.idle.push(free);
    });
    this.all.push(connection);
    return connection;
  }
}
