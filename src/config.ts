import { ConfigError, integer, urlSetting } from './env-values.js';
import type { Env } from './env-values.js';
import { limitSettings } from './limits.js';
import type { Limits } from './limits.js';
import { databaseUrl } from './database-url.js';
import { deliverySettings } from './delivery-settings.js';
import type { DeliverySettings } from './delivery-settings.js';

// Every importer reads the configuration's names from here, whichever file defines them.
export { ConfigError } from './env-values.js';
export { parseDatabaseUrl } from './database-url.js';
export type { DatabaseTarget } from './database-url.js';
export type { DeliverySettings } from './delivery-settings.js';
export type { Limits } from './limits.js';

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
  /**
   * Longest wait of ingest's group commit for more uplinks after a light commit (ms); undefined:
   * the database's default (see `IngestService`).
   */
  ingestCommitDelayMs: number | undefined;
  /** `snsr serve` processes sharing the port (node:cluster); more than 1 needs PostgreSQL. */
  processes: number;
  /** Old-generation growth past the live heap before V8 collects again, in %; 0: V8's own (see heap-growth.ts). */
  heapGrowthPercent: number;
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
  delivery: DeliverySettings;
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

function timezone(env: Env): string {
  const zone = env.SNSR_TIMEZONE || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`SNSR_TIMEZONE must be an IANA time zone such as Europe/Paris, got "${zone}"`);
  }
  return zone;
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
    ingestCommitDelayMs: env.SNSR_INGEST_COMMIT_DELAY_MS ? integer(env, 'SNSR_INGEST_COMMIT_DELAY_MS', 0, 0, 1000) : undefined,
    processes: integer(env, 'SNSR_PROCESSES', 1, 1, 256),
    heapGrowthPercent: integer(env, 'SNSR_HEAP_GROWTH_PERCENT', 50, 0, 1000),
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
