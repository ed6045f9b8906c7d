import { ConfigError, integer, urlSetting } from './env-values.js';
import type { Env } from './env-values.js';

export interface Limits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Open connections at most; undefined: derived from the process's file-descriptor limit. */
  maxConnections: number | undefined;
  shutdownGraceMs: number;
  /** Event-loop delay beyond which requests are shed with 503; 0 turns shedding off. */
  maxEventLoopDelayMs: number;
  /** Fastify's `trustProxy`: false, true, a hop count, or the proxies' addresses and CIDRs. */
  trustProxy: boolean | number | string[];
  /** Shared rate-limit counters; unset: the database holds them. */
  redisUrl: string | undefined;
  /** Requests per minute per credential on developer and on device routes; 0 turns the quota off. */
  developerRequestsPerMinute: number;
  deviceRequestsPerMinute: number;
  /** Failed authentications allowed per window before 429. */
  failuresPerAccount: number;
  failuresPerSerial: number;
  failuresPerAddress: number;
  failureWindowMinutes: number;
  /** Entries of a registration, attach or detach request at most (413 beyond). */
  maxBatch: number;
}

function trustProxy(env: Env): Limits['trustProxy'] {
  const raw = (env.SNSR_TRUST_PROXY ?? '').trim();
  if (raw === '' || /^(false|0|no)$/i.test(raw)) return false;
  if (/^(true|yes)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const bad = list.find((entry) => !/^[0-9a-f.:]+(\/\d{1,3})?$/i.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry));
  if (bad) throw new ConfigError(`SNSR_TRUST_PROXY must be true, false, a hop count or a list of proxy addresses/CIDRs, got "${bad}"`);
  return list;
}

export function limitSettings(env: Env): Limits {
  const maxConnections = integer(env, 'SNSR_MAX_CONNECTIONS', 0, 0, 10_000_000);
  return {
    headersTimeoutMs: integer(env, 'SNSR_HEADERS_TIMEOUT_MS', 10_000, 100, 3_600_000),
    requestTimeoutMs: integer(env, 'SNSR_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'SNSR_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 3_600_000),
    maxConnections: maxConnections === 0 ? undefined : maxConnections,
    shutdownGraceMs: integer(env, 'SNSR_SHUTDOWN_GRACE_MS', 10_000, 0, 3_600_000),
    maxEventLoopDelayMs: integer(env, 'SNSR_MAX_EVENT_LOOP_DELAY_MS', 500, 0, 60_000),
    trustProxy: trustProxy(env),
    redisUrl: urlSetting(env, 'SNSR_REDIS_URL', ['redis', 'rediss']),
    developerRequestsPerMinute: integer(env, 'SNSR_DEVELOPER_REQUESTS_PER_MINUTE', 1200, 0, 10_000_000),
    deviceRequestsPerMinute: integer(env, 'SNSR_DEVICE_REQUESTS_PER_MINUTE', 600, 0, 10_000_000),
    failuresPerAccount: integer(env, 'SNSR_AUTH_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
    failuresPerSerial: integer(env, 'SNSR_AUTH_FAILURES_PER_SERIAL', 20, 1, 1_000_000),
    failuresPerAddress: integer(env, 'SNSR_AUTH_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
    failureWindowMinutes: integer(env, 'SNSR_AUTH_FAILURE_WINDOW_MINUTES', 15, 1, 1440),
    maxBatch: integer(env, 'SNSR_MAX_BATCH', 10_000, 1, 1_000_000),
  };
}
