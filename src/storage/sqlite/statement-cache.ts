import type SqliteDatabase from 'better-sqlite3';
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement } from 'kysely';

/**
 * A text whose LIMIT or OFFSET is a bound parameter, cut around those parameters: `pieces` (one
 * more than `slots`) are the SQL between them, `slots` the index of each among the text's `?`.
 */
interface Bounds {
  pieces: string[];
  slots: number[];
}

/**
 * Where `sql` binds a LIMIT or OFFSET (`limit ?`, `offset ?`, any case), or undefined when it binds
 * none. Kysely writes every value as a bare `?`; quoted names, string literals and comments are
 * skipped, so a `?` inside them is not taken for a parameter.
 */
export function boundLimits(sql: string): Bounds | undefined {
  const pieces: string[] = [];
  const slots: number[] = [];
  let parameter = 0;
  let cut = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === '`') {
      i = sql.indexOf(c, i + 1);
      if (i < 0) break;
    } else if (c === '[') {
      i = sql.indexOf(']', i + 1);
      if (i < 0) break;
    } else if (c === '-' && sql[i + 1] === '-') {
      i = sql.indexOf('\n', i);
      if (i < 0) break;
    } else if (c === '/' && sql[i + 1] === '*') {
      i = sql.indexOf('*/', i + 2);
      if (i < 0) break;
      i++;
    } else if (c === '?') {
      if (/\b(limit|offset)\s+$/i.test(sql.slice(Math.max(0, i - 12), i))) {
        pieces.push(sql.slice(cut, i));
        slots.push(parameter);
        cut = i + 1;
      }
      parameter++;
    }
  }
  if (slots.length === 0) return undefined;
  pieces.push(sql.slice(cut));
  return { pieces, slots };
}

const isCount = (value: unknown): value is number | bigint =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || (typeof value === 'bigint' && value >= 0n);

/**
 * The better-sqlite3 database as Kysely's SQLite dialect uses it, with two changes that matter on
 * the hot paths:
 *
 * - Statements are kept by text. Kysely prepares every query anew, and preparing costs SQLite more
 *   than running a small indexed query (it halved the CPU of an uplink once cached). Queries are
 *   parameterized, so their texts are few. One still iterating a stream is not shared.
 * - A LIMIT or OFFSET is written into the text instead of bound. SQLite's planner reads the value
 *   of a LIMIT parameter, so binding one marks the statement expired and the next step prepares it
 *   all over again: every run of every paged query paid a prepare. With the values written in,
 *   each (text, values) pair is prepared once and kept like any other text. Only non-negative
 *   integers are written in, so nothing but digits reaches a text; other values are bound.
 */
export function cachingStatements(database: SqliteDatabase.Database, size = 1000): KyselySqliteDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  /** Per text binding a LIMIT or OFFSET, the statement that writes their values in; null for the others. */
  const rewriting = new Map<string, SqliteStatement | null>();
  const cached = (sql: string): SqliteDatabase.Statement => {
    let statement = statements.get(sql);
    if (statement === undefined || statement.busy) {
      if (statements.size >= size) statements.clear();
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  /** Runs `sql` with its bound limits written in when they are counts, else as it is. */
  const withLimits = (sql: string, { pieces, slots }: Bounds): SqliteStatement => {
    const runs = <T>(parameters: readonly unknown[], use: (statement: SqliteDatabase.Statement, values: readonly unknown[]) => T): T => {
      if (!slots.every((slot) => isCount(parameters[slot]))) return use(cached(sql), parameters);
      const text = slots.reduce((done, slot, i) => done + String(parameters[slot]) + pieces[i + 1]!, pieces[0]!);
      return use(cached(text), parameters.filter((_, i) => !slots.includes(i)));
    };
    return {
      reader: cached(sql).reader,
      all: (parameters) => runs(parameters, (statement, values) => statement.all(values)),
      run: (parameters) => runs(parameters, (statement, values) => statement.run(values)),
      iterate: (parameters) => runs(parameters, (statement, values) => statement.iterate(values)),
    };
  };
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      let rewritten = rewriting.get(sql);
      if (rewritten === undefined) {
        if (rewriting.size >= size) rewriting.clear();
        const bounds = boundLimits(sql);
        rewritten = bounds ? withLimits(sql, bounds) : null;
        rewriting.set(sql, rewritten);
      }
      return rewritten ?? cached(sql);
    },
  };
}
