import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventHub, StreamEvent } from '../integrations/events/event-hub.js';
import { alertEvent, messageEvent } from '../integrations/events/event-hub.js';
import type { StreamEventsRepository, StreamScope } from '../storage/stream-events-repository.js';
import { badRequest } from '../domain/errors.js';

/** Most events of each type a resuming client is sent; older ones it missed are not replayed. */
export const REPLAY_LIMIT = 100;

/** Where a stream stands: the newest message and alert ids it has seen. Event ids are `<message>-<alert>`. */
export interface Cursor {
  message: number;
  alert: number;
}

/** `Last-Event-ID` (header, or `lastEventId` in the query for clients that cannot set it): a cursor, or 400. */
export function lastEventId(request: FastifyRequest): Cursor | undefined {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown>).lastEventId;
  const raw = (Array.isArray(header) ? header[0] : header) ?? (typeof query === 'string' ? query : undefined);
  if (raw === undefined || raw === '') return undefined;
  const match = /^(\d{1,15})-(\d{1,15})$/.exec(raw.trim());
  if (!match) throw badRequest(`Last-Event-ID must be an event id of this stream (<message id>-<alert id>), got ${JSON.stringify(raw)}`);
  return { message: Number(match[1]), alert: Number(match[2]) };
}

export interface StreamOptions {
  hub: EventHub;
  events: StreamEventsRepository;
  scope: StreamScope;
  resumeFrom: Cursor | undefined;
  heartbeatMs: number;
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
  const cursor: Cursor = options.resumeFrom ?? (await events.latest());
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
    const key = `${event.type}:${event.id}`;
    if (sent.has(key)) return;
    sent.add(key);
    if (sent.size > 4 * REPLAY_LIMIT && !replaying) sent.clear();
    if (event.type === 'message') cursor.message = Math.max(cursor.message, event.id);
    else cursor.alert = Math.max(cursor.alert, event.id);
    res.write(`id: ${cursor.message}-${cursor.alert}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
    if (res.writableLength > MAX_BUFFERED_BYTES) res.destroy();
  };
  const remove = hub.add({ scope, send: (event) => (replaying ? held.push(event) : write(event)) });
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), options.heartbeatMs);
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
    if (options.resumeFrom) {
      const [messages, alerts] = await Promise.all([
        events.messagesAfter(scope, options.resumeFrom.message, REPLAY_LIMIT),
        events.alertsAfter(scope, options.resumeFrom.alert, REPLAY_LIMIT),
      ]);
      for (const row of messages) write(messageEvent(row));
      for (const alert of alerts) write(alertEvent(alert));
    }
  } catch (error) {
    request.log.warn({ err: error }, 'live stream replay failed; continuing with live events');
  } finally {
    replaying = false;
    for (const event of held.splice(0)) write(event);
  }
}
