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
  /** Signs device tokens and derives account API keys; generated and stored in the database when unset. */
  secret: string | undefined;
  /** Bearer token the Sigfox network presents on uplinks; uplinks are refused while it is unset. */
  networkToken: string | undefined;
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
  };
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
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: env.SNSR_DATABASE_URL || './data/snsr.sqlite',
    secret: env.SNSR_SECRET || undefined,
    networkToken: env.SNSR_NETWORK_TOKEN || undefined,
    timezone: timezone(env),
    logLevel,
    logFormat,
    bodyLimit: integer(env, 'SNSR_BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    delivery: {
      backoffMs: integer(env, 'SNSR_DELIVERY_BACKOFF_MS', 10_000, 1, 86_400_000),
      maxAttempts: integer(env, 'SNSR_DELIVERY_MAX_ATTEMPTS', 8, 1, 100),
      allowPrivateTargets: boolean(env, 'SNSR_CALLBACK_ALLOW_PRIVATE', false),
      retentionDays: integer(env, 'SNSR_DELIVERY_RETENTION_DAYS', 7, 1, 3650),
      concurrency: integer(env, 'SNSR_DELIVERY_CONCURRENCY', 32, 1, 1024),
      perAppConcurrency: integer(env, 'SNSR_DELIVERY_PER_APP_CONCURRENCY', 4, 1, 256),
    },
  };
}

export type DatabaseTarget =
  | { dialect: 'sqlite'; path: string }
  | { dialect: 'postgres'; url: string };

/** `sqlite:PATH`, `sqlite::memory:`, a bare path, or a `postgres://` / `postgresql://` URL. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url };
  const path = url.replace(/^sqlite:/i, '');
  if (path === '') throw new ConfigError('SNSR_DATABASE_URL names no SQLite file');
  return { dialect: 'sqlite', path: path === ':memory:' ? path : resolve(path) };
}
