// What the batched statements (batched-queries.ts and beside it) share: arguments turned into one
// array per column for `unnest` (text arrays packed into one string each), and the rows a statement
// returns matched back to its arguments.
import { CompiledQuery } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { markHot } from '../storage/hot-statements.js';

type Db = Kysely<Database>;

/** For each hot statement with text arrays, which parameters (0-based) travel packed. */
const packedParameters = new Map<string, ReadonlySet<number>>();

/**
 * The statement's text, marked hot: run by name, parsed once per connection and planned once. Its
 * array parameters (`$n::type[]`) are read through scalar subqueries, so that the planner takes each
 * for an array of unknown length (10 elements) whether or not it is given the values. Given them,
 * it would cost a round of one or two uplinks (a quiet server's) below the plan made without them,
 * and PostgreSQL would plan the statement again on every run rather than keep that one (measured:
 * a sixth of the database's CPU per uplink sent one at a time). Costed alike, the plan made once is kept.
 * Text arrays travel packed (see `packText`) and are unpacked by the statement.
 */
export function hot(text: string): string {
  const packed = new Set<number>();
  const planned = text.replace(/\$(\d+)::(\w+)\[\]/g, (_, n: string, type: string) => {
    if (type !== 'text') return `(SELECT $${n}::${type}[])::${type}[]`;
    packed.add(Number(n) - 1);
    const p = `$${n}::text`;
    return `(SELECT array_replace(string_to_array(substr(${p}, 4), substr(${p}, 1, 1), substr(${p}, 2, 1)), substr(${p}, 3, 1), ''))::text[]`;
  });
  if (packed.size > 0) packedParameters.set(planned, packed);
  markHot(planned);
  return planned;
}

/** Characters that may mark a packed text array's separators, NULLs and empty strings, in order of preference. */
function* markers(): Generator<string> {
  for (const code of [0x1e, 0x1f, 0x1d, 0x1c]) yield String.fromCharCode(code);
  // Then the private use area: an element would have to hold all 6,400 of them to exhaust it.
  for (let code = 0xe000; code <= 0xf8ff; code++) yield String.fromCharCode(code);
}

/**
 * A text array as one string that PostgreSQL splits back (`hot` writes the SQL that does): three
 * characters that no element holds, the separator, the NULL mark and the empty string's mark, then
 * the elements between separators. node-postgres would send an array literal instead, every
 * element quoted and its quotes escaped: for the JSON the messages carry, that escaping took some
 * 7 % of the ingest process's busy time. Joining costs next to nothing, and so does splitting.
 */
export function packText(values: readonly unknown[]): string {
  const texts = values.map((value) => {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
    throw new TypeError(`a text array holds ${typeof value}`);
  });
  const chosen: string[] = [];
  for (const mark of markers()) {
    if (!texts.some((text) => text !== null && text.includes(mark))) chosen.push(mark);
    if (chosen.length === 3) break;
  }
  if (chosen.length < 3) throw new Error('a text array holds every character that could separate its elements');
  const [separator, nul, empty] = chosen as [string, string, string];
  return separator + nul + empty + texts.map((text) => (text === null ? nul : text === '' ? empty : text)).join(separator);
}

/** Runs the statement on the transaction; its rows. */
export async function rows<R>(trx: Db, text: string, parameters: unknown[]): Promise<R[]> {
  const packed = packedParameters.get(text);
  const values = packed ? parameters.map((value, i) => (packed.has(i) ? packText(value as unknown[]) : value)) : parameters;
  return (await trx.executeQuery<R>(CompiledQuery.raw(text, values))).rows;
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
