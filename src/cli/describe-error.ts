import { ConfigError } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { MigrationError } from '../storage/migrate.js';

interface SystemError extends Error {
  code?: string;
  path?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

const FILE_ERRORS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EEXIST: 'a file is in the way of the directory to create',
};

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is it running, on that port?)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ECONNRESET: 'the connection was reset',
};

/**
 * The one line the CLI prints for a failure: what went wrong in words a newcomer can act on, never
 * a stack trace. Errors snsr raises itself already carry such a message; system errors (a missing
 * file, a port in use, a database that does not answer) are translated here.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof DomainError || error instanceof ConfigError || error instanceof MigrationError) return error.message;
  const { code, path, address, port, hostname } = error as SystemError;
  if (code === 'EADDRINUSE') {
    return `port ${port ?? '?'} is already in use${address ? ` on ${address}` : ''}: stop the program using it, or choose another with PORT=…`;
  }
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${address ?? 'HOST'}: no such address on this machine (check HOST)`;
  if (code === 'EACCES' && port !== undefined) return `not allowed to listen on port ${port}: ports below 1024 need privileges (choose another with PORT=…)`;
  if (code !== undefined && path !== undefined && FILE_ERRORS[code]) return `cannot open ${path}: ${FILE_ERRORS[code]}`;
  if (code !== undefined && NETWORK_ERRORS[code]) {
    const where = hostname ?? (address ? `${address}${port ? `:${port}` : ''}` : 'its address');
    return `cannot reach the database at ${where}: ${NETWORK_ERRORS[code]} — check SNSR_DATABASE_URL`;
  }
  if (code === 'SQLITE_CANTOPEN') return `cannot open the SQLite database file (check SNSR_DATABASE_URL and the directory's permissions)`;
  // PostgreSQL answered but refused: its own message ("password authentication failed for user …") is clear.
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && 'severity' in error) return `the database refused: ${error.message}`;
  return error.message;
}
