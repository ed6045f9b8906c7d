// The SQL of the device API's history pages (see MessagePages), one builder per statement, each
// with the values it binds in the order its SQL binds them.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { windowStart } from './page-window.js';
import { MODULE_COLUMNS } from './modules-repository.js';

/** Which messages a history read covers: a whole module (its device and children) or one device. */
export type MessageScope = { moduleSerial: string; deviceId?: number };

/** Exclusive time bounds in epoch ms, newest first. */
export interface TimeRange {
  /** only messages strictly older than this */
  before?: number;
  /** only messages strictly newer than this */
  after?: number;
  limit: number;
}

export type ModuleColumns = readonly (typeof MODULE_COLUMNS)[number][];

/** A statement of fixed text for its shape: built and compiled once per `shape`, then run with `parameters`. */
export interface PageStatement {
  shape: string;
  build: () => { compile(): { sql: string; parameters: readonly unknown[] } };
  parameters: unknown[];
}

/** The page's upper bound, if it has one; then its bounds, as the keyset scan binds them. */
const before = (range: TimeRange): unknown[] => (range.before !== undefined ? [range.before] : []);
const bounds = (range: TimeRange): unknown[] => [...before(range), ...(range.after !== undefined ? [range.after] : [])];
const rangeShape = (scope: MessageScope, range: TimeRange): string => `${scope.deviceId !== undefined} ${range.before !== undefined} ${range.after !== undefined}`;

/** The page's keyset scan; `windowed`, only after the window's start (see `windowStart`), read again from the module. */
function pageQuery(db: Kysely<Database>, scope: MessageScope, range: TimeRange, columns: readonly ('id' | 'when_ms' | 'body')[], windowed = false) {
  let query = db.selectFrom('messages').select(columns);
  query = scope.deviceId !== undefined ? query.where('device_id', '=', scope.deviceId) : query.where('module_serial', '=', scope.moduleSerial);
  if (range.before !== undefined) query = query.where('when_ms', '<', range.before);
  if (range.after !== undefined) query = query.where('when_ms', '>', range.after);
  if (windowed) {
    const start = sql`(SELECT ${windowStart(range.before)} FROM modules WHERE serial = ${scope.moduleSerial})`;
    // No newest message known and no bound: no window (every row is after -1).
    query = query.where('when_ms', '>', sql<number>`COALESCE(${start}, -1)`);
  }
  query = scope.deviceId !== undefined ? query.orderBy('device_id', 'desc') : query.orderBy('module_serial', 'desc');
  return query.orderBy('when_ms', 'desc').orderBy('id', 'desc').limit(range.limit);
}

/** The page read whole (every month): its `bodies` alone, or the `page`'s rows, each message's key and body. */
export function wholePage(db: Kysely<Database>, scope: MessageScope, range: TimeRange, read: 'bodies' | 'page'): PageStatement {
  const columns = read === 'bodies' ? (['body'] as const) : (['id', 'when_ms', 'body'] as const);
  return { shape: `${read} ${rangeShape(scope, range)}`, build: () => pageQuery(db, scope, range, columns), parameters: [scope.deviceId ?? scope.moduleSerial, ...bounds(range), range.limit] };
}

/** The module's catalog row. */
export function moduleRow(db: Kysely<Database>, moduleSerial: string): PageStatement {
  return { shape: 'module', build: () => db.selectFrom('modules').select(MODULE_COLUMNS).where('serial', '=', moduleSerial), parameters: [moduleSerial] };
}

/** The windowed page's parameters, in the order its SQL binds them. */
const windowedParameters = (scope: MessageScope, range: TimeRange): unknown[] => [scope.deviceId ?? scope.moduleSerial, ...bounds(range), ...before(range), scope.moduleSerial, range.limit];

/** What an aggregated read answers of its page `p`: its size, how many have a stored body, and those bodies in page order. */
const PAGE_AGGREGATES = {
  n: sql<number>`count(*)::int`,
  stored: sql<number>`count(p.body)::int`,
  bodies: sql<string | null>`string_agg(p.body, ',' ORDER BY p.when_ms DESC, p.id DESC)`,
};

/**
 * One statement, one row: the module's `moduleColumns` and the window's start, and the page within
 * the window: its size (`n`), how many of its messages have a stored body (`stored`), and those
 * bodies in page order, joined by commas (`bodies`).
 */
export function aggregatedWindow(db: Kysely<Database>, scope: MessageScope, range: TimeRange, moduleColumns: ModuleColumns): PageStatement {
  const build = () =>
    db
      .selectFrom('modules')
      .select([...moduleColumns, sql<number | null>`${windowStart(range.before)}`.as('window_start')])
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom(pageQuery(db, scope, range, ['id', 'when_ms', 'body'], true).as('p'))
            .select([PAGE_AGGREGATES.n.as('n'), PAGE_AGGREGATES.stored.as('stored'), PAGE_AGGREGATES.bodies.as('bodies')])
            .as('a'),
        (join) => join.onTrue(),
      )
      .select(['a.n', 'a.stored', 'a.bodies'])
      .where('serial', '=', scope.moduleSerial);
  const shape = `aggregated ${moduleColumns.length} ${rangeShape(scope, range)}`;
  return { shape, build, parameters: [...before(range), ...windowedParameters(scope, range), scope.moduleSerial] };
}

/**
 * One statement: the module's row (the `moduleColumns` asked for and the window's start), and
 * beside it the page's rows within the window, each message's key and body.
 */
export function rowsOfWindow(db: Kysely<Database>, scope: MessageScope, range: TimeRange, moduleColumns: ModuleColumns): PageStatement {
  const build = () =>
    db
      .selectFrom('modules')
      .select([...moduleColumns, sql<number | null>`NULL::bigint`.as('id'), sql<number | null>`NULL::bigint`.as('when_ms'), sql<string | null>`NULL::text`.as('body')])
      .select(sql<number | null>`${windowStart(range.before)}`.as('window_start'))
      .where('serial', '=', scope.moduleSerial)
      .unionAll(
        db
          .selectFrom(pageQuery(db, scope, range, ['id', 'when_ms', 'body'], true).as('p'))
          .select([...moduleColumns.map((column) => sql<never>`NULL`.as(column)), 'p.id', 'p.when_ms', 'p.body', sql<never>`NULL`.as('window_start')]),
      );
  const shape = `windowed ${moduleColumns.length} ${rangeShape(scope, range)}`;
  return { shape, build, parameters: [...before(range), scope.moduleSerial, ...windowedParameters(scope, range)] };
}

/** One read of a batch: a whole module's page (see `windowsOfModules`). */
export interface ModulePageRead {
  moduleSerial: string;
  range: TimeRange;
}

/**
 * `aggregatedWindow` of several whole modules in one statement: a row per read whose module exists
 * (`ord`, its place in `reads` from 1), each as `aggregatedWindow` answers it, each page its own
 * keyset scan joined laterally. The reads are a VALUES list padded with empty rows to a power of
 * two: a few texts of fixed size, each planned once per connection (PostgreSQL plans a statement
 * whose reads come as arrays anew at each run, its row count unknown to a reusable plan).
 *
 * `bounded`: every read has an upper bound (`before`), or none has. A scan bounded on both sides
 * by values unknown to the plan is estimated at a row or two, and planned as "read every row of
 * the window, then sort": the usual read, the newest page, has one lower bound (the window's
 * start or `after`, whichever is later), and its plan stops at the page's last row.
 */
export function windowsOfModules(db: Kysely<Database>, reads: readonly ModulePageRead[], bounded: boolean): PageStatement {
  const size = 2 ** Math.ceil(Math.log2(Math.max(1, reads.length)));
  const padded = [...reads, ...Array<undefined>(size - reads.length).fill(undefined)];
  const values = padded.map((read, i) => [read?.moduleSerial ?? null, read?.range.before ?? null, read?.range.after ?? null, read?.range.limit ?? 0, i + 1]);
  // Built only when a size is first seen: afterwards only `values` travel (see `MessagePages.run`).
  const build = () => {
    const rows = values.map((row) => sql`(${sql.join(row.map((value, j) => sql`${value}::${sql.raw(VALUE_TYPES[j]!)}`))})`);
    const start = windowStart(sql<number | null>`q.before`);
    const upper = bounded ? sql`AND when_ms < q.before` : sql``;
    return { compile: () => sql`SELECT q.ord, ${sql.join(MODULE_COLUMNS.map((column) => sql.ref(`modules.${column}`)))}, ${start} AS window_start, a.n, a.stored, a.bodies
      FROM (VALUES ${sql.join(rows)}) AS q(serial, before, after, lim, ord)
      JOIN modules ON modules.serial = q.serial
      LEFT JOIN LATERAL (
        SELECT ${PAGE_AGGREGATES.n} AS n, ${PAGE_AGGREGATES.stored} AS stored, ${PAGE_AGGREGATES.bodies} AS bodies
        FROM (
          SELECT id, when_ms, body FROM messages
          WHERE module_serial = q.serial ${upper} AND when_ms > GREATEST(q.after, ${start}, -1)
          ORDER BY module_serial DESC, when_ms DESC, id DESC LIMIT q.lim
        ) AS p
      ) AS a ON true`.compile(db) };
  };
  return { shape: `windows of ${size} modules${bounded ? ', bounded' : ''}`, build, parameters: values.flat() };
}

/** The types of a VALUES row of `windowsOfModules`: serial, before, after, limit, ord. */
const VALUE_TYPES = ['text', 'bigint', 'bigint', 'int', 'int'];
