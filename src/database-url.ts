import { resolve } from 'node:path';
import { ConfigError } from './env-values.js';
import type { Env } from './env-values.js';

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

export function databaseUrl(env: Env): string {
  const url = env.SNSR_DATABASE_URL || './data/snsr.sqlite';
  parseDatabaseUrl(url); // refuses unsupported schemes at start, before anything is opened
  return url;
}
