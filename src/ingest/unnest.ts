// What the batched statements (batched-queries.ts and beside it) share: arguments turned into one
// array per column for `unnest`, and the rows a statement returns matched back to its arguments.
import { CompiledQuery } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { markHot } from '../storage/hot-statements.js';

type Db = Kysely<Database>;

/**
 * The statement's text, marked hot: run by name, parsed once per connection and planned once. Its
 * array parameters (`$n::type[]`) are read through scalar subqueries, so that the planner takes each
 * for an array of unknown length (10 elements) whether or not it is given the values. Given them,
 * it would cost a round of one or two uplinks (a quiet server's) below the plan made without them,
 * and PostgreSQL would plan the statement again on every run rather than keep that one (measured:
 * a sixth of the database's CPU per uplink sent one at a time). Costed alike, the plan made once is kept.
 */
export function hot(text: string): string {
  const planned = text.replace(/\$(\d+)::(\w+)\[\]/g, '(SELECT $$$1::$2[])::$2[]');
  markHot(planned);
  return planned;
}

/** Runs the statement on the transaction; its rows. */
export async function rows<R>(trx: Db, text: string, parameters: unknown[]): Promise<R[]> {
  return (await trx.executeQuery<R>(CompiledQuery.raw(text, parameters))).rows;
}

/** The arguments as one array per column, for `unnest`. */
export function columns(args: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => args.map((arg) => arg[column] ?? null));
}

/** Answers each argument with the row whose `key` matches its own, or undefined. */
export function matched<A, R>(args: A[], found: R[], argKey: (arg: A) => unknown, rowKey: (row: R) => unknown): (R | undefined)[] {
  const byKey = new Map(found.map((row) => [rowKey(row), row]));
  return args.map((arg) => byKey.get(argKey(arg)));
}

/** The arguments without those whose key an earlier one has. */
function distinct<A>(args: A[], key: (arg: A) => unknown): A[] {
  const seen = new Set<unknown>();
  return args.filter((arg) => !seen.has(key(arg)) && seen.add(key(arg)));
}

/**
 * Runs an insert that does nothing on conflict for the first argument of each key only, and answers
 * that one with its row (or undefined): the later ones would have met the first's row or the same
 * conflict, so they get undefined without being sent.
 */
export async function insertedOnce<A, R>(args: A[], key: (arg: A) => unknown, rowKey: (row: R) => unknown, insert: (sent: A[]) => Promise<R[]>): Promise<(R | undefined)[]> {
  const byKey = new Map((await insert(distinct(args, key))).map((row) => [rowKey(row), row]));
  return args.map((arg) => {
    const row = byKey.get(key(arg));
    byKey.delete(key(arg));
    return row;
  });
}
