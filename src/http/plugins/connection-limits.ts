import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Limits } from '../../config.js';

/** Node checks header and request deadlines on this period (30 s unless told): expiries are enforced within it. */
export const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;
/** File descriptors kept for what is not a client connection: database, log, callback sockets, files. */
const RESERVED_DESCRIPTORS = 256;

/** The soft limit on open files (`ulimit -n`) of this process, where the system tells it. */
export function fileDescriptorLimit(limits = '/proc/self/limits'): number | undefined {
  try {
    const line = readFileSync(limits, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** Client connections the descriptors allow, the reserve kept aside; 1024 where the limit is unknown. */
export function derivedMaxConnections(descriptors: number | undefined): number {
  if (descriptors === undefined || !Number.isFinite(descriptors)) return 1024;
  return Math.max(64, descriptors - RESERVED_DESCRIPTORS);
}

/**
 * Bounded time and count per connection: headers must arrive within `headersTimeoutMs` of
 * connecting, the whole request (a trickled body included) within `requestTimeoutMs` (Node answers
 * 408 and closes), an idle keep-alive connection is closed after `keepAliveTimeoutMs`, and beyond
 * `maxConnections` new connections are closed at once while those open are served. Set on the
 * server before it listens: Node starts its deadline checks on `listening`.
 */
export function connectionLimits(app: FastifyInstance, limits: Limits): void {
  const server = app.server;
  server.requestTimeout = limits.requestTimeoutMs;
  // Node refuses a headers deadline beyond the request's; the request's covers it then.
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = CONNECTIONS_CHECKING_INTERVAL_MS;
  server.maxConnections = limits.maxConnections ?? derivedMaxConnections(fileDescriptorLimit());
}
