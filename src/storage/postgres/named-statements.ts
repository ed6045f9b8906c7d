import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { hotStatementName } from '../hot-statements.js';

const guarded = new WeakSet<pg.PoolClient>();

function namingClient(client: pg.PoolClient): PostgresPoolClient {
  // A connection the server ends while it is checked out (idle in a transaction too long, a restart)
  // fails its query and is dropped by the pool on release; unheard, its 'error' event would end the process.
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on('error', () => {});
  }
  const query = (text: unknown, values?: unknown[]) => {
    const name = typeof text === 'string' ? hotStatementName(text) : undefined;
    // Anything else (other statements, Kysely's streaming cursors) goes through unchanged.
    return name === undefined ? client.query(text as string, values) : client.query({ name, text: text as string, values });
  };
  return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
}

/** The pool as Kysely sees it: every client runs the hot statements (hot-statements.ts) by name. */
export function namingPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => namingClient(await pool.connect()),
    end: () => pool.end(),
  };
}
