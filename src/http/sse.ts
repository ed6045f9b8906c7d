import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventHub, StreamEvent } from '../integrations/events/event-hub.js';
import { alertEvent, deliveryEvent, messageEvent } from '../integrations/events/event-hub.js';
import type { DeliveryCursor, StreamEventsRepository, StreamScope } from '../storage/stream-events-repository.js';
import { badRequest } from '../domain/errors.js';

/** Most events of each type a resuming client is sent; older ones it missed are not replayed. */
export const REPLAY_LIMIT = 100;

/**
 * Where a stream stands: the newest message and alert ids it has seen, and the last delivery outcome
 * (time and delivery id: a delivery has several). Event ids are `<message>-<alert>-<time>-<delivery>`;
 * a two-part id of earlier versions resumes messages and alerts, and deliveries from now.
 */
export interface Cursor {
  message: number;
  alert: number;
  delivery?: DeliveryCursor;
}

const formatId = (cursor: Cursor) => `${cursor.message}-${cursor.alert}-${cursor.delivery?.at ?? 0}-${cursor.delivery?.id ?? 0}`;

const after = (a: DeliveryCursor, b: DeliveryCursor) => a.at > b.at || (a.at === b.at && a.id > b.id);

/** `Last-Event-ID` (header, or `lastEventId` in the query for clients that cannot set it): a cursor, or 400. */
export function lastEventId(request: FastifyRequest): Cursor | undefined {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown>).lastEventId;
  const raw = (Array.isArray(header) ? header[0] : header) ?? (typeof query === 'string' ? query : undefined);
  if (raw === undefined || raw === '') return undefined;
  const match = /^(\d{1,15})-(\d{1,15})(?:-(\d{1,15})-(\d{1,15}))?$/.exec(raw.trim());
  if (!match) throw badRequest(`Last-Event-ID must be an event id of this stream (<message id>-<alert id>-<delivery time>-<delivery id>), got ${JSON.stringify(raw)}`);
  return { message: Number(match[1]), alert: Number(match[2]), ...(match[3] !== undefined && { delivery: { at: Number(match[3]), id: Number(match[4]) } }) };
}

export interface StreamOptions {
  hub: EventHub;
  events: StreamEventsRepository;
  scope: StreamScope;
  resumeFrom: Cursor | undefined;
  heartbeatMs: number;
  /**
   * Asked at each heartbeat: whether the stream's credential still works (a session not ended, a
   * password or token unchanged, an API key not revoked, a device key not rotated). False ends the
   * stream, and the client's reconnection then meets the 401 its other requests get.
   */
  stillAuthorized?: () => Promise<boolean>;
  onOpen(): void;
  onClose(): void;
}

/** Drops a client that reads too slowly rather than holding its backlog without bound. */
const MAX_BUFFERED_BYTES = 1 << 20;

/**
 * Serves one Server-Sent Events stream: replays what the client missed (bounded), then live events
 * from the hub, with a heartbeat comment so proxies and clients know the connection is alive. Live
 * events that arrive during the replay wait and are sent after it, once each.
 */
export async function serveStream(request: FastifyRequest, reply: FastifyReply, options: StreamOptions): Promise<void> {
  const { hub, events, scope } = options;
  const resumeFrom = options.resumeFrom;
  const cursor: Cursor = resumeFrom ? { ...resumeFrom } : await events.latest();
  // Outcomes are ordered by their time: a stream without one to resume from starts at its opening.
  cursor.delivery ??= { at: Date.now(), id: 0 };
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(`retry: 2000\n: snsr live events\n\n`);
  options.onOpen();

  let replaying = true;
  const held: StreamEvent[] = [];
  const sent = new Set<string>();
  let closed = false;
  const write = (event: StreamEvent) => {
    if (closed) return;
    const key = event.type === 'delivery' ? `delivery:${event.id}:${event.at}` : `${event.type}:${event.id}`;
    if (sent.has(key)) return;
    sent.add(key);
    if (sent.size > 4 * REPLAY_LIMIT && !replaying) sent.clear();
    if (event.type === 'message') cursor.message = Math.max(cursor.message, event.id);
    else if (event.type === 'alert') cursor.alert = Math.max(cursor.alert, event.id);
    else if (!cursor.delivery || after({ at: event.at, id: event.id }, cursor.delivery)) cursor.delivery = { at: event.at, id: event.id };
    // One event goes to every stream that wants it: serialized once, not once per stream.
    event.json ??= JSON.stringify(event.data);
    res.write(`id: ${formatId(cursor)}\nevent: ${event.type}\ndata: ${event.json}\n\n`);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  };
  const remove = hub.add({ scope, send: (event) => (replaying ? held.push(event) : write(event)) });
  let checking = false;
  const stillAuthorized = options.stillAuthorized;
  const recheck = () => {
    if (!stillAuthorized || checking) return;
    checking = true;
    stillAuthorized()
      .then((authorized) => authorized || res.end())
      .catch((error: unknown) => request.log.warn({ err: error }, 'live stream could not check its session; checking again at the next heartbeat'))
      .finally(() => (checking = false));
  };
  const heartbeat = setInterval(() => {
    res.write(': heartbeat\n\n');
    recheck();
  }, options.heartbeatMs);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    remove();
    options.onClose();
  };
  res.on('close', close);
  res.on('error', close);

  try {
    if (resumeFrom) {
      const [messages, alerts, deliveries] = await Promise.all([
        events.messagesAfter(scope, resumeFrom.message, REPLAY_LIMIT),
        events.alertsAfter(scope, resumeFrom.alert, REPLAY_LIMIT),
        scope.deliveries && resumeFrom.delivery ? events.deliveriesAfter(scope, resumeFrom.delivery, REPLAY_LIMIT) : [],
      ]);
      for (const row of messages) write(messageEvent(row));
      for (const alert of alerts) write(alertEvent(alert));
      for (const row of deliveries) write(deliveryEvent(row));
    }
  } catch (error) {
    request.log.warn({ err: error }, 'live stream replay failed; continuing with live events');
  } finally {
    replaying = false;
    for (const event of held.splice(0)) write(event);
  }
}
