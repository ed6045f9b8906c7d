import { resolve } from 'node:path';

/**
 * The one configuration schema. The server, the worker and every CLI command read it the same way,
 * from environment variables; `.env.example` documents each one.
 */
export interface Config {
  port: number;
  host: string;
  /** `sqlite:PATH`, a plain file path, or `postgres://…` */
  databaseUrl: string;
  database: {
    /** Connections each process keeps to PostgreSQL (SQLite has one). */
    poolSize: number;
    /** PostgreSQL cancels a statement running longer; 0: never. */
    statementTimeoutMs: number;
    /** Longest wait for a lock (PostgreSQL `lock_timeout`, SQLite `busy_timeout`); 0: PostgreSQL waits forever. */
    lockTimeoutMs: number;
  };
  /** `snsr serve` processes sharing the port (node:cluster); more than 1 needs PostgreSQL. */
  processes: number;
  /** Signs device tokens and derives account API keys; generated and stored in the database when unset. */
  secret: string | undefined;
  /** Bearer token the Sigfox network presents on uplinks; uplinks are refused while it is unset. */
  networkToken: string | undefined;
  /** Bearer token `GET /metrics` requires; unset: the metrics are open. */
  metricsToken: string | undefined;
  /** MQTT broker messages and alerts are published to (`mqtt://host:1883`, `mqtts://…`); unset: no MQTT. */
  mqttUrl: string | undefined;
  /** Time between heartbeat comments on live event streams. */
  streamHeartbeatMs: number;
  watchdog: {
    intervalMs: number;
    /** Extra silence allowed beyond the expected period, as a share of it (0.5 = 50 %). */
    tolerance: number;
    /** Expected period (s) of watched devices nothing else gives one; undefined: none. */
    defaultPeriodS: number | undefined;
  };
  timezone: string;
  logLevel: string;
  /** `json`, or `pretty` (colourful, one line per entry): by default pretty when stdout is a terminal. */
  logFormat: 'json' | 'pretty';
  bodyLimit: number;
  delivery: {
    backoffMs: number;
    maxAttempts: number;
    allowPrivateTargets: boolean;
    retentionDays: number;
    concurrency: number;
    perAppConcurrency: number;
    /** How long a claim is reserved for its worker, on the database's clock. */
    leaseMs: number;
    /** Total time one callback request may take. */
    timeoutMs: number;
  };
  /** Base URL users reach snsr at (no trailing slash): links in emails; `Secure` cookies when https. */
  publicUrl: string | undefined;
  accounts: {
    /** `open`: anyone may sign up with an email address (needs SMTP); `closed`: the operator creates accounts. */
    signup: 'closed' | 'open';
    sessionIdleMinutes: number;
    sessionMaxHours: number;
    /** Lifetime of a sign-up's activation link; an account not activated by then is forgotten. */
    signupExpiryHours: number;
    resetExpiryMinutes: number;
    auditRetentionDays: number;
  };
  /** Days each kind of uplink data is kept by default (0: forever); owners override per module. */
  retention: {
    messagesDays: number;
    rawDays: number;
    /** Ended alerts; open ones are kept whatever their age. */
    alertsDays: number;
  };
  email: {
    /** `smtp://user:pass@host:587` or `smtps://…`; unset: no email (no sign-up, no password reset). */
    smtpUrl: string | undefined;
    from: string;
    /** Least time between two alert emails to one account; alerts raised meanwhile go in the next one. */
    alertIntervalMs: number;
  };
  /** What one client may cost the server: see the README's "Running on the internet". */
  limits: Limits;
}

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

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function timezone(env: Env): string {
  const zone = env.SNSR_TIMEZONE || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`SNSR_TIMEZONE must be an IANA time zone such as Europe/Paris, got "${zone}"`);
  }
  return zone;
}

function urlSetting(env: Env, name: string, schemes: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(`${name} must be a ${schemes.join(' or ')} URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** Sign-up sends activation emails, and their links must point somewhere: both are required. */
function accountSettings(env: Env, smtpUrl: string | undefined, publicUrl: string | undefined): Config['accounts'] {
  const signup = env.SNSR_SIGNUP || 'closed';
  if (signup !== 'closed' && signup !== 'open') throw new ConfigError(`SNSR_SIGNUP must be closed or open, got "${signup}"`);
  if (signup === 'open' && smtpUrl === undefined) {
    throw new ConfigError('SNSR_SIGNUP=open needs SNSR_SMTP_URL: sign-up sends an activation email');
  }
  if (smtpUrl !== undefined && publicUrl === undefined) {
    throw new ConfigError('SNSR_SMTP_URL needs SNSR_PUBLIC_URL: the links in emails are built from it');
  }
  return {
    signup,
    sessionIdleMinutes: integer(env, 'SNSR_SESSION_IDLE_MINUTES', 60, 1, 525_600),
    sessionMaxHours: integer(env, 'SNSR_SESSION_MAX_HOURS', 24, 1, 8760),
    signupExpiryHours: integer(env, 'SNSR_SIGNUP_EXPIRY_HOURS', 48, 1, 8760),
    resetExpiryMinutes: integer(env, 'SNSR_RESET_EXPIRY_MINUTES', 30, 1, 1440),
    auditRetentionDays: integer(env, 'SNSR_AUDIT_RETENTION_DAYS', 90, 1, 36_500),
  };
}

/**
 * A worker starts a send only while its lease will outlast it (the fencing that keeps a stalled
 * worker from sending what another took over), so the lease must leave room for claims waiting
 * their turn: at least three request timeouts.
 */
function deliverySettings(env: Env): Config['delivery'] {
  const timeoutMs = integer(env, 'SNSR_DELIVERY_TIMEOUT_MS', 5000, 100, 600_000);
  const leaseMs = integer(env, 'SNSR_DELIVERY_LEASE_MS', 30_000, 300, 3_600_000);
  if (leaseMs < 3 * timeoutMs) {
    throw new ConfigError(`SNSR_DELIVERY_LEASE_MS (${leaseMs}) must be at least 3 × SNSR_DELIVERY_TIMEOUT_MS (${timeoutMs})`);
  }
  return {
    backoffMs: integer(env, 'SNSR_DELIVERY_BACKOFF_MS', 10_000, 1, 86_400_000),
    maxAttempts: integer(env, 'SNSR_DELIVERY_MAX_ATTEMPTS', 8, 1, 100),
    allowPrivateTargets: boolean(env, 'SNSR_CALLBACK_ALLOW_PRIVATE', false),
    retentionDays: integer(env, 'SNSR_DELIVERY_RETENTION_DAYS', 7, 1, 3650),
    concurrency: integer(env, 'SNSR_DELIVERY_CONCURRENCY', 32, 1, 1024),
    perAppConcurrency: integer(env, 'SNSR_DELIVERY_PER_APP_CONCURRENCY', 4, 1, 256),
    leaseMs,
    timeoutMs,
  };
}

function databaseUrl(env: Env): string {
  const url = env.SNSR_DATABASE_URL || './data/snsr.sqlite';
  parseDatabaseUrl(url); // refuses unsupported schemes at start, before anything is opened
  return url;
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

function limitSettings(env: Env): Limits {
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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const logFormat = env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (logFormat !== 'json' && logFormat !== 'pretty') {
    throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${logFormat}"`);
  }
  const smtpUrl = urlSetting(env, 'SNSR_SMTP_URL', ['smtp', 'smtps']);
  const publicUrl = urlSetting(env, 'SNSR_PUBLIC_URL', ['http', 'https']);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: databaseUrl(env),
    database: {
      poolSize: integer(env, 'SNSR_DATABASE_POOL_SIZE', 10, 1, 1000),
      statementTimeoutMs: integer(env, 'SNSR_STATEMENT_TIMEOUT_MS', 60_000, 0, 86_400_000),
      lockTimeoutMs: integer(env, 'SNSR_LOCK_TIMEOUT_MS', 10_000, 0, 86_400_000),
    },
    processes: integer(env, 'SNSR_PROCESSES', 1, 1, 256),
    secret: env.SNSR_SECRET || undefined,
    networkToken: env.SNSR_NETWORK_TOKEN || undefined,
    metricsToken: env.SNSR_METRICS_TOKEN || undefined,
    mqttUrl: urlSetting(env, 'SNSR_MQTT_URL', ['mqtt', 'mqtts', 'ws', 'wss']),
    streamHeartbeatMs: integer(env, 'SNSR_STREAM_HEARTBEAT_S', 15, 1, 3600) * 1000,
    watchdog: {
      intervalMs: integer(env, 'SNSR_WATCHDOG_INTERVAL_S', 60, 1, 86_400) * 1000,
      tolerance: integer(env, 'SNSR_WATCHDOG_TOLERANCE_PERCENT', 50, 0, 10_000) / 100,
      defaultPeriodS: env.SNSR_WATCHDOG_DEFAULT_PERIOD_S ? integer(env, 'SNSR_WATCHDOG_DEFAULT_PERIOD_S', 0, 60, 31_536_000) : undefined,
    },
    timezone: timezone(env),
    logLevel,
    logFormat,
    bodyLimit: integer(env, 'SNSR_BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    delivery: deliverySettings(env),
    publicUrl,
    accounts: accountSettings(env, smtpUrl, publicUrl),
    retention: {
      messagesDays: integer(env, 'SNSR_RETENTION_MESSAGES_DAYS', 0, 0, 36_500),
      rawDays: integer(env, 'SNSR_RETENTION_RAW_DAYS', 0, 0, 36_500),
      alertsDays: integer(env, 'SNSR_RETENTION_ALERTS_DAYS', 0, 0, 36_500),
    },
    email: {
      smtpUrl,
      from: env.SNSR_MAIL_FROM || 'snsr <snsr@localhost>',
      alertIntervalMs: integer(env, 'SNSR_ALERT_EMAIL_INTERVAL_S', 60, 1, 86_400) * 1000,
    },
    limits: limitSettings(env),
  };
}

export type DatabaseTarget =
  | { dialect: 'sqlite'; path: string }
  | { dialect: 'postgres'; url: string };

/**
 * `sqlite:PATH`, `sqlite::memory:`, a bare path, or a `postgres://` / `postgresql://` URL. Any other
 * scheme (`mysql://…`, `postgres:db` without slashes) is refused rather than taken for a file name.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url };
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== 'sqlite') {
    throw new ConfigError(
      `SNSR_DATABASE_URL "${url}" is not supported: use a SQLite file path (./data/snsr.sqlite or sqlite:PATH) or postgres://user:password@host:5432/database`,
    );
  }
  const path = url.replace(/^sqlite:/i, '');
  if (path === '') throw new ConfigError('SNSR_DATABASE_URL names no SQLite file');
  return { dialect: 'sqlite', path: path === ':memory:' ? path : resolve(path) };
}
