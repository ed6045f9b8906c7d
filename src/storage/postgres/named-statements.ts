import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { hotStatementName } from '../hot-statements.js';

const guarded = new WeakSet<pg.PoolClient>();
/** What a begin is answered with before PostgreSQL has answered it. */
const BEGUN = { command: 'BEGIN', rowCount: null, rows: [] };

function namingClient(client: pg.PoolClient): PostgresPoolClient {
  // A connection the server ends while it is checked out (idle in a transaction too long, a restart)
  // fails its query and is dropped by the pool on release; unheard, its 'error' event would end the process.
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on('error', () => {});
  }
  let beginning: Promise<unknown> | undefined;
  const query = (text: unknown, values?: unknown[]) => {
    if (text === 'begin') {
      // Answered at once: the statement after it waits for its answer (below).
      beginning = client.query(text);
      beginning.catch(() => {});
      return Promise.resolve(BEGUN);
    }
    const name = typeof text === 'string' ? hotStatementName(text) : undefined;
    // Anything else (other statements, Kysely's streaming cursors) goes through unchanged.
    const send = () => (name === undefined ? client.query(text as string, values) : client.query({ name, text: text as string, values }));
    const begun = beginning;
    beginning = undefined;
    if (begun === undefined) return send();
    if (name === undefined) return begun.then(send);
    // A hot statement goes out right behind the begin, in the same round trip (the connection is
    // pipelined); it fails with the begin if that failed.
    const result = send();
    return begun.then(
      () => result,
      (error: unknown) => {
        result.catch(() => {});
        throw error;
      },
    );
  };
  return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
}

/**
 * The pool as Kysely sees it: every client runs the hot statements (hot-statements.ts) by name, and
 * a transaction's begin goes out with its first statement when that is a hot one (the ingest's
 * module locks): a round trip fewer per transaction. Any other first statement waits for the begin's
 * answer, so that nothing but a hot statement could ever run outside a transaction that failed to begin.
 */
export function namingPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => namingClient(await pool.connect()),
    end: () => pool.end(),
  };
}
