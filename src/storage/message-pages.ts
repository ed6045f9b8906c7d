import { CompiledQuery, sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { CatalogModule } from '../domain/types.js';
import type { Database, ModuleRow } from './schema.js';
import { historyRows } from './history-rows.js';
import type { HistoryRow } from './history-rows.js';
import { windowStart } from './page-window.js';
import { markHot } from './hot-statements.js';
import type { Capabilities } from './capabilities.js';
import { MODULE_COLUMNS, toModule } from './modules-repository.js';

export type { HistoryRow } from './history-rows.js';
export { PAGE_WINDOW_MS } from './page-window.js';

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

/** A row of a page: the message's key and its stored wire form (null when stored without one). */
type StoredRow = { id: number; when_ms: number; body: string | null };
/** A row of a windowed read: a message, or (no id) the window's start. */
type Windowed = { id: number | null; when_ms: number | null; body: string | null; window_start: number | null };

/**
 * The device API's history pages, its hottest reads: each message's stored wire form read by a
 * keyset scan, the SQL compiled once per shape (and named on PostgreSQL).
 */
export class MessagePages {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Pick<Capabilities, 'embedded'>,
  ) {}

  /** SQL text of `storedPage` and `moduleAndPage` per query shape, compiled once: the device API's hottest queries. */
  private readonly pageSql = new Map<string, string>();

  /**
   * The query's SQL text, compiled once per shape and rerun with new values (building and compiling
   * cost a quarter of the page query's run time). Each text runs as a named statement on PostgreSQL.
   */
  private compiledOnce(shape: string, build: () => { compile(): { sql: string; parameters: readonly unknown[] } }, parameters: unknown[]): CompiledQuery {
    let text = this.pageSql.get(shape);
    if (text === undefined) {
      const compiled = build().compile();
      // The compiled query binds its values in the order they were added, the order of `parameters`.
      if (compiled.parameters.length !== parameters.length || compiled.parameters.some((value, i) => value !== parameters[i])) {
        throw new Error(`history query binds ${JSON.stringify(compiled.parameters)}, expected ${JSON.stringify(parameters)}`);
      }
      text = compiled.sql;
      this.pageSql.set(shape, text);
      markHot(text);
    }
    return CompiledQuery.raw(text, parameters);
  }

  /** The windowed page's parameters, in the order its SQL binds them. */
  private static windowedParameters(key: string | number, moduleSerial: string, range: TimeRange): unknown[] {
    const bounds = [...(range.before !== undefined ? [range.before] : []), ...(range.after !== undefined ? [range.after] : [])];
    return [key, ...bounds, ...(range.before !== undefined ? [range.before] : []), moduleSerial, range.limit];
  }

  private static pageParameters(key: string | number, range: TimeRange): unknown[] {
    return [key, ...(range.before !== undefined ? [range.before] : []), ...(range.after !== undefined ? [range.after] : []), range.limit];
  }

  /**
   * `history` for the device API: the same keyset scan, reading only each message's stored wire
   * form (`body`), one text column instead of a dozen and no join. Rows stored before `body`
   * existed come back as their columns (with their device's serial) for the caller to build.
   */
  async storedPage(scope: MessageScope, range: TimeRange): Promise<(string | HistoryRow)[]> {
    if (!this.capabilities.embedded) return this.windowedPage(scope, range);
    return this.wholePage(scope, range);
  }

  /** `storedPage` over every month: on SQLite always, on PostgreSQL for what a window left. */
  private async wholePage(scope: MessageScope, range: TimeRange): Promise<(string | HistoryRow)[]> {
    const shape = `${scope.deviceId !== undefined} ${range.before !== undefined} ${range.after !== undefined}`;
    const parameters = MessagePages.pageParameters(scope.deviceId ?? scope.moduleSerial, range);
    // The bodies alone first: every message stored since `body` exists has one, and on SQLite each
    // column read is a property of a row object built per message (a fifth of the read).
    const bodies = await this.db.executeQuery(this.compiledOnce(`bodies ${shape}`, () => this.pageQuery(scope, range, ['body']), parameters));
    if ((bodies.rows as { body: string | null }[]).every((row) => row.body !== null)) return (bodies.rows as { body: string }[]).map((row) => row.body);
    const query = this.compiledOnce(`page ${shape}`, () => this.pageQuery(scope, range), parameters);
    return this.built((await this.db.executeQuery(query)).rows as StoredRow[]);
  }

  /**
   * The module's catalog row and `storedPage` of its messages (the whole module's), as of one
   * moment or with the module read after the page: whoever the module grants the page to now was
   * granted what it held before. On a server, one statement (one round trip); embedded, the page
   * and then the module (a join would copy the page into a temporary table). No module: undefined.
   */
  async moduleAndPage(moduleSerial: string, range: TimeRange): Promise<{ module: CatalogModule | undefined; page: (string | HistoryRow)[] }> {
    if (this.capabilities.embedded) {
      const page = await this.storedPage({ moduleSerial }, range);
      const query = this.compiledOnce('module', () => this.db.selectFrom('modules').select(MODULE_COLUMNS).where('serial', '=', moduleSerial), [moduleSerial]);
      const [module] = (await this.db.executeQuery(query)).rows as ModuleRow[];
      return { module: module && toModule(module), page };
    }
    // The module's row and the page's rows under one snapshot, the module's columns sent once
    // rather than beside each message (a join): each row is one or the other.
    const query = this.windowedRead({ moduleSerial }, range, MODULE_COLUMNS);
    const rows = (await this.db.executeQuery(query)).rows as (ModuleRow & Windowed)[];
    const module = rows.find((row) => row.id === null);
    if (module === undefined) return { module: undefined, page: [] };
    return { module: toModule(module), page: await this.completed({ moduleSerial }, range, rows, module.window_start) };
  }

  /**
   * PostgreSQL: `storedPage` read first within the window (`PAGE_WINDOW_MS`) before the module's
   * newest message or the page's upper bound, whichever is earlier; the window's start comes back
   * on a row of its own.
   */
  private async windowedPage(scope: MessageScope, range: TimeRange): Promise<(string | HistoryRow)[]> {
    const query = this.windowedRead(scope, range, []);
    const rows = (await this.db.executeQuery(query)).rows as Windowed[];
    return this.completed(scope, range, rows, rows.find((row) => row.id === null)?.window_start ?? null);
  }

  /**
   * One statement: the module's row (the `moduleColumns` asked for and the window's start), and
   * beside it the page's rows within the window.
   */
  private windowedRead(scope: MessageScope, range: TimeRange, moduleColumns: readonly (typeof MODULE_COLUMNS)[number][]): CompiledQuery {
    return this.compiledOnce(
      `windowed ${moduleColumns.length} ${scope.deviceId !== undefined} ${range.before !== undefined} ${range.after !== undefined}`,
      () =>
        this.db
          .selectFrom('modules')
          .select([...moduleColumns, sql<number | null>`NULL::bigint`.as('id'), sql<number | null>`NULL::bigint`.as('when_ms'), sql<string | null>`NULL::text`.as('body')])
          .select(sql<number | null>`${windowStart(range.before)}`.as('window_start'))
          .where('serial', '=', scope.moduleSerial)
          .unionAll(
            this.db
              .selectFrom(this.pageQuery(scope, range, undefined, true).as('p'))
              .select([...moduleColumns.map((column) => sql<never>`NULL`.as(column)), 'p.id', 'p.when_ms', 'p.body', sql<never>`NULL`.as('window_start')]),
          ),
      [...(range.before !== undefined ? [range.before] : []), scope.moduleSerial, ...MessagePages.windowedParameters(scope.deviceId ?? scope.moduleSerial, scope.moduleSerial, range)],
    );
  }

  /**
   * A windowed read's page, in order, and the messages before the window's start if it held fewer
   * than the page asks for and the page reaches back past it (a module quiet for a month: its
   * messages are read from every month, as they would have been without a window).
   */
  private async completed(scope: MessageScope, range: TimeRange, rows: readonly Windowed[], start: number | null): Promise<(string | HistoryRow)[]> {
    // A union keeps each part's order in practice, not by promise: put in order here.
    const messages = rows.filter((row): row is Windowed & StoredRow => row.id !== null).sort((a, b) => b.when_ms - a.when_ms || b.id - a.id);
    const page = await this.built(messages);
    if (start === null || page.length >= range.limit || (range.after !== undefined && Number(start) <= range.after)) return page;
    return [...page, ...(await this.wholePage(scope, { ...range, before: Number(start) + 1, limit: range.limit - page.length }))];
  }

  /** The page's entries: each stored body, or the columns of messages stored without one. */
  private async built(rows: readonly StoredRow[]): Promise<(string | HistoryRow)[]> {
    const unbuilt = rows.filter((row) => row.body === null);
    if (unbuilt.length === 0) return rows.map((row) => row.body!);
    const built = new Map((await historyRows(this.db, unbuilt)).map((row) => [Number(row.id), row]));
    return rows.map((row) => row.body ?? built.get(Number(row.id))!);
  }

  /** The page's keyset scan; `windowed`, only after the window's start (see `windowStart`), read again from the module. */
  private pageQuery(scope: MessageScope, range: TimeRange, columns: readonly ('id' | 'when_ms' | 'body')[] = ['id', 'when_ms', 'body'], windowed = false) {
    let query = this.db.selectFrom('messages').select(columns);
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
}
