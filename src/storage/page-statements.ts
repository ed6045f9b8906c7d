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
            .select([
              sql<number>`count(*)::int`.as('n'),
              sql<number>`count(p.body)::int`.as('stored'),
              sql<string | null>`string_agg(p.body, ',' ORDER BY p.when_ms DESC, p.id DESC)`.as('bodies'),
            ])
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
