import { EventEmitter } from 'node:events';
import { Buffer } from 'node:buffer';
import { CompiledQuery } from 'kysely';
import type { DatabaseConnection, Dialect, Kysely, QueryResult } from 'kysely';
import { withDriver, wrapConnections } from './driver-change.js';

/** What can be announced. A channel name is its own word on PostgreSQL too (`snsr_<channel>`). */
export type Channel = 'deliveries' | 'messages' | 'alerts' | 'delivery_outcomes';
export const CHANNELS: readonly Channel[] = ['deliveries', 'messages', 'alerts', 'delivery_outcomes'];

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; the same limit holds on SQLite. */
export const MAX_PAYLOAD_BYTES = 7999;

export type NotificationHandler = (payload: string) => void;

/**
 * Wake-ups between the parts of snsr — and, on PostgreSQL, between its processes — sent only once
 * the data they announce is committed.
 *
 * - `publish(db, channel, payload?)`: with a transaction, queues the notification and sends it
 *   after that transaction commits (dropped if it rolls back; the same channel and payload twice in
 *   one transaction is sent once); with the plain database handle, sends at once. Payloads are short
 *   text (ids, small JSON) under {@link MAX_PAYLOAD_BYTES}: a subscriber reads the data itself.
 * - `subscribe(channel, handler)`: calls `handler(payload)` for every notification on the channel,
 *   from any process on PostgreSQL (LISTEN on one dedicated connection, reconnected when lost), from
 *   this process on SQLite. Returns the unsubscribe function. Listening starts in the background:
 *   `await notifier.ready()` when what is published next must be seen.
 *
 * Delivery is at most once: notifications sent while the listening connection is being re-opened
 * are lost, so a subscriber that must not miss work also polls (slowly) — a notification only
 * makes it look sooner.
 */
export interface Notifier {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: only the connection matters
  publish(db: Kysely<any>, channel: Channel, payload?: string): Promise<void>;
  subscribe(channel: Channel, handler: NotificationHandler): () => void;
  /** Resolves once every channel subscribed so far is listened to (PostgreSQL starts it in the background). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * How notifications cross processes (PostgreSQL); without one they stay in this process (SQLite).
 * NOTIFY is itself transactional, so the transport sends just before COMMIT and the server delivers
 * at commit; local notifications are handed to subscribers just after it.
 */
export interface NotificationTransport {
  /** Sends notifications on `connection`, inside its transaction if it is in one. */
  send(connection: DatabaseConnection, items: Notification[]): Promise<void>;
  /** Sends a transaction's notifications and commits it, in one round trip. */
  sendAndCommit(connection: DatabaseConnection, items: Notification[]): Promise<void>;
  /** Starts receiving `channel`; `deliver` is called with each notification received. */
  listen(channel: Channel, deliver: (channel: Channel, payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

export interface Notification {
  channel: Channel;
  payload: string;
}

// `publish` travels as a query through the transaction's own connection, so it needs no access to
// Kysely's internals to know which transaction it belongs to; the wrapped connection keeps it.
const MARKER = '/* snsr:notify */';
const EMPTY: QueryResult<never> = { rows: [] };

/**
 * `publish` without the notifier at hand: the handle's own connection knows where it goes, so code
 * deep in a transaction (the outbox) needs only the transaction. Every storage opened by
 * `openStorage` understands it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: only the connection matters
export async function publish(db: Kysely<any>, channel: Channel, payload = ''): Promise<void> {
  if (!CHANNELS.includes(channel)) throw new RangeError(`unknown notification channel ${JSON.stringify(channel)}`);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new RangeError(`notification payload over ${MAX_PAYLOAD_BYTES} bytes`);
  await db.executeQuery(CompiledQuery.raw(MARKER, [channel, payload]));
}

export class TransactionalNotifier implements Notifier {
  private readonly local = new EventEmitter().setMaxListeners(0);
  private readonly listening = new Map<Channel, Promise<void>>();
  /** Per connection inside a transaction: what to send when it commits. */
  private readonly pending = new WeakMap<DatabaseConnection, Map<string, Notification>>();
  private readonly wrapped = new WeakSet<DatabaseConnection>();

  constructor(
    private readonly transport: NotificationTransport | undefined,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: only the connection matters
  publish(db: Kysely<any>, channel: Channel, payload = ''): Promise<void> {
    return publish(db, channel, payload);
  }

  subscribe(channel: Channel, handler: NotificationHandler): () => void {
    this.local.on(channel, handler);
    if (!this.listening.has(channel)) {
      const started = this.transport?.listen(channel, (from, payload) => this.deliver([{ channel: from, payload }])) ?? Promise.resolve();
      started.catch(this.onError);
      this.listening.set(channel, started);
    }
    return () => void this.local.off(channel, handler);
  }

  async ready(): Promise<void> {
    await Promise.all(this.listening.values());
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    await this.transport?.close();
  }

  private deliver(items: Notification[]): void {
    for (const { channel, payload } of items) {
      for (const handler of this.local.listeners(channel) as NotificationHandler[]) {
        try {
          handler(payload);
        } catch (error) {
          this.onError(error);
        }
      }
    }
  }

  /** The dialect with its driver taught to hold notifications until commit. */
  wrapDialect(dialect: Dialect): Dialect {
    return withDriver(dialect, (driver) => {
      const begin = driver.beginTransaction.bind(driver);
      const commit = driver.commitTransaction.bind(driver);
      const rollback = driver.rollbackTransaction.bind(driver);
      wrapConnections(driver, (connection) => this.wrapConnection(connection));
      driver.beginTransaction = async (connection, settings) => {
        await begin(connection, settings);
        this.pending.set(connection, new Map());
      };
      driver.commitTransaction = async (connection) => {
        const items = [...(this.pending.get(connection)?.values() ?? [])];
        this.pending.delete(connection);
        if (items.length > 0 && this.transport) await this.transport.sendAndCommit(connection, items);
        else await commit(connection);
        if (items.length > 0 && !this.transport) this.deliverSoon(items);
      };
      driver.rollbackTransaction = async (connection) => {
        this.pending.delete(connection);
        await rollback(connection);
      };
    });
  }

  /** After the commit returned, but not inside the caller's await: subscribers run on their own turn. */
  private deliverSoon(items: Notification[]): void {
    setImmediate(() => this.deliver(items));
  }

  private wrapConnection(connection: DatabaseConnection): DatabaseConnection {
    if (this.wrapped.has(connection)) return connection;
    this.wrapped.add(connection);
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      if (query.sql !== MARKER) return execute<R>(query);
      const [channel, payload] = query.parameters as [Channel, string];
      const queued = this.pending.get(connection);
      if (queued) queued.set(`${channel}\n${payload}`, { channel, payload });
      else if (this.transport) await this.transport.send(connection, [{ channel, payload }]);
      else this.deliverSoon([{ channel, payload }]);
      return EMPTY;
    };
    return connection;
  }
}
