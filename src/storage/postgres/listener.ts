import pg from 'pg';
import { CompiledQuery } from 'kysely';
import type { DatabaseConnection } from 'kysely';
import type { Channel, Notification, NotificationTransport } from '../notifications.js';
import { CHANNELS } from '../notifications.js';

/** The server-side name: prefixed, so snsr's channels never meet another application's. */
const serverName = (channel: Channel) => `snsr_${channel}`;
const byServerName = new Map(CHANNELS.map((channel) => [serverName(channel), channel]));

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5000;

// One statement for all of a transaction's notifications: one round trip, whatever their number.
const notifyAll = (items: Notification[]) =>
  CompiledQuery.raw('select pg_notify(c, p) from unnest($1::text[], $2::text[]) as n(c, p)', [
    items.map((item) => serverName(item.channel)),
    items.map((item) => item.payload),
  ]);

/**
 * The notifications, then COMMIT, as one simple-protocol text (values written as literals): the
 * commit that follows every ingest batch costs no round trip of its own. An error in the first
 * statement skips the COMMIT, and the caller rolls back as after any failed commit.
 */
const notifyAndCommit = (items: Notification[]) =>
  CompiledQuery.raw(
    `select pg_notify(c, p) from (values ${items.map((item) => `(${pg.escapeLiteral(serverName(item.channel))}, ${pg.escapeLiteral(item.payload)})`).join(', ')}) as n(c, p); commit`,
  );

/**
 * NOTIFY through the pool's own connections (inside the publishing transaction: PostgreSQL holds
 * it until commit), LISTEN on one dedicated connection outside the pool, opened at the first
 * subscription. A lost listening connection is re-opened with growing pauses and its channels
 * listened to again.
 */
export class PostgresTransport implements NotificationTransport {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly channels = new Set<Channel>();
  private deliverTo: ((channel: Channel, payload: string) => void) | undefined;
  private retryMs = RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  async send(connection: DatabaseConnection, items: Notification[]): Promise<void> {
    await connection.executeQuery(notifyAll(items));
  }

  async sendAndCommit(connection: DatabaseConnection, items: Notification[]): Promise<void> {
    await connection.executeQuery(notifyAndCommit(items));
  }

  async listen(channel: Channel, deliver: (channel: Channel, payload: string) => void): Promise<void> {
    this.deliverTo = deliver;
    this.channels.add(channel);
    try {
      const client = await this.connect();
      await client.query(`LISTEN ${serverName(channel)}`);
    } catch (error) {
      // The database is away: keep trying; the channel is listened to once the connection is back.
      this.onError(error);
      this.retry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    if (this.closed) throw new Error('the notifier is closed');
    // Pipelined: subscriptions made together send their LISTENs together, in order.
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, pipeline: true });
    client.on('notification', (message) => {
      const channel = byServerName.get(message.channel);
      if (channel) this.deliverTo?.(channel, message.payload ?? '');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    await client.connect();
    for (const channel of this.channels) await client.query(`LISTEN ${serverName(channel)}`);
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
    return client;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    this.onError(error);
    void client.end().catch(() => {});
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect().catch((error: unknown) => {
        this.onError(error);
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
        this.retry();
      });
    }, this.retryMs);
  }
}
