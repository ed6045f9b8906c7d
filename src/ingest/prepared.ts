import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { markHot } from '../storage/hot-statements.js';

/** Stands for the i-th argument while the query is compiled; never sent to the database. */
class Slot {
  constructor(readonly index: number) {}
}

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** For each parameter of the compiled query, the argument it takes, or -1 for a constant. */
  slots: number[];
}

/**
 * A query of fixed shape, compiled once per dialect. Kysely rebuilds and recompiles its query tree
 * on every call, which on SQLite costs as much as running the (cached) statement; the pipeline runs
 * the same few queries for every uplink, so only their parameters need to change.
 *
 * `build` is called once per dialect, with markers standing for the arguments: it must pass each
 * argument as a value (never inspect it or branch on it), so that the SQL is the same for any
 * arguments. Queries whose shape depends on a value (`IS NULL`, optional columns) are separate
 * prepared queries.
 */
export function prepared<A extends unknown[], R>(build: (db: Kysely<Database>, ...args: A) => Compilable<R>) {
  // Keyed by the dialect adapter: SQLite and PostgreSQL compile the same builder differently.
  const compiled = new WeakMap<object, Compiled<R>>();
  return async (db: Kysely<Database>, ...args: A): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let entry = compiled.get(adapter);
    if (entry === undefined) {
      const query = build(db, ...(args.map((_, i) => new Slot(i)) as A)).compile();
      const slots = query.parameters.map((p) => (p instanceof Slot ? p.index : -1));
      if (new Set(slots.filter((i) => i >= 0)).size !== args.length) throw new Error('prepared query: every argument must be a parameter');
      entry = { query, slots };
      compiled.set(adapter, entry);
      // Fixed text: PostgreSQL may keep it parsed and planned per connection.
      markHot(query.sql);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((p, i) => (slots[i] >= 0 ? args[slots[i]] : p));
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  };
}
