import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Dialect } from 'kysely';
import type { Database } from '../schema.js';
import type { Capabilities } from '../capabilities.js';
import { namingPool } from './named-statements.js';

export const postgresCapabilities: Capabilities = { dialect: 'postgres', skipLocked: true, embedded: false };

// BIGINT columns hold epoch milliseconds and ids, all far below 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface PostgresOptions {
  poolSize?: number;
  /** The server cancels a statement running longer than this; 0 or unset: never. */
  statementTimeoutMs?: number;
  /** A statement waiting longer than this for a lock fails (rather than queueing behind a stuck one); 0 or unset: never. */
  lockTimeoutMs?: number;
  /** Adds behaviour to the driver (after-commit notifications). */
  wrap?: (dialect: Dialect) => Dialect;
  /** Receives the pool, for its use figures (metrics). */
  onPool?: (pool: pg.Pool) => void;
}

export function connectPostgres(url: string, options: PostgresOptions = {}): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Queries issued together on one connection (a group commit's lookups beside its inserts) go out
    // without waiting for each other's answers: one round trip where there were several. snsr uses no
    // cursors, which pipelined connections refuse.
    pipeline: true,
    // Sent with each connection's start-up, so every session of the pool has them from its first query.
    ...(options.statementTimeoutMs && { statement_timeout: options.statementTimeoutMs }),
    ...(options.lockTimeoutMs && { lock_timeout: options.lockTimeoutMs }),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  options.onPool?.(pool);
  const dialect = new PostgresDialect({ pool: namingPool(pool) });
  return new Kysely<Database>({ dialect: options.wrap ? options.wrap(dialect) : dialect });
}
