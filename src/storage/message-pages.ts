import { CompiledQuery } from 'kysely';
import type { Kysely } from 'kysely';
import type { CatalogModule } from '../domain/types.js';
import type { Database, ModuleRow } from './schema.js';
import { historyRows } from './history-rows.js';
import type { HistoryRow } from './history-rows.js';
import { markHot } from './hot-statements.js';
import type { Capabilities } from './capabilities.js';
import { MODULE_COLUMNS, toModule } from './modules-repository.js';
import { aggregatedWindow, moduleRow, rowsOfWindow, wholePage, windowsOfModules } from './page-statements.js';
import type { MessageScope, ModuleColumns, ModulePageRead, PageStatement, TimeRange } from './page-statements.js';
import { ReadBatches } from './page-batches.js';

export type { HistoryRow } from './history-rows.js';
export type { MessageScope, TimeRange } from './page-statements.js';
export { PAGE_WINDOW_MS } from './page-window.js';

/**
 * A page's entries: a stored wire form (JSON text) of one message or, on PostgreSQL, of several in
 * a row joined by commas; or the columns of a message stored before `body` existed, for the caller
 * to build (with its device's serial). `storedPageJson` makes the page's JSON of either.
 */
export type PageEntries = (string | HistoryRow)[];

/** A row of a page: the message's key and its stored wire form (null when stored without one). */
type StoredRow = { id: number; when_ms: number; body: string | null };
/** A row of a windowed read: a message, or (no id) the window's start. */
type Windowed = { id: number | null; when_ms: number | null; body: string | null; window_start: number | null };
/** The row of an aggregated read (see `aggregatedWindow`). */
type Aggregated = { window_start: number | null; n: number; stored: number; bodies: string | null };

/**
 * Whole-module page reads in flight on PostgreSQL at once, each a batch of those that arrived
 * together: two keep a batch gathering while one runs, and a batch of many costs a backend little
 * more than one read (see "History reads" in the README).
 */
const BATCHES_IN_FLIGHT = 2;
const MAX_BATCH = 64;

/**
 * The device API's history pages, its hottest reads: each message's stored wire form read by a
 * keyset scan, the SQL compiled once per shape (and named on PostgreSQL).
 */
export class MessagePages {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Pick<Capabilities, 'embedded'>,
  ) {}

  /** PostgreSQL: concurrent whole-module reads, one statement per batch: newest pages, and pages bounded by `before`. */
  private readonly moduleWindows = { newest: this.windowBatches(false), bounded: this.windowBatches(true) };

  private windowBatches(bounded: boolean) {
    return new ReadBatches<ModulePageRead, ModuleRow & Aggregated>(
      async (reads) => {
        const answers = reads.map((): (ModuleRow & Aggregated) | undefined => undefined);
        for (const row of await this.run<ModuleRow & Aggregated & { ord: number }>(windowsOfModules(this.db, reads, bounded))) answers[row.ord - 1] = row;
        return answers;
      },
      { maxInFlight: BATCHES_IN_FLIGHT, maxBatchSize: MAX_BATCH },
    );
  }

  /** Token reads sent in batches (PostgreSQL) and the statements that carried them, since the process started. */
  batched(): { reads: number; batches: number } {
    const { newest, bounded } = this.moduleWindows;
    return { reads: newest.sent.reads + bounded.sent.reads, batches: newest.sent.batches + bounded.sent.batches };
  }

  /** SQL text of each statement shape, compiled once: the device API's hottest queries. */
  private readonly pageSql = new Map<string, string>();

  /**
   * The statement's SQL text, compiled once per shape and rerun with new values (building and
   * compiling cost a quarter of the page query's run time). Each text runs as a named statement on
   * PostgreSQL.
   */
  private async run<R>({ shape, build, parameters }: PageStatement): Promise<R[]> {
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
    return (await this.db.executeQuery(CompiledQuery.raw(text, parameters))).rows as R[];
  }

  /**
   * `history` for the device API: the same keyset scan, reading only each message's stored wire
   * form (`body`), one text column instead of a dozen and no join.
   */
  async storedPage(scope: MessageScope, range: TimeRange): Promise<PageEntries> {
    if (!this.capabilities.embedded) return (await this.windowed(scope, range, [])).page;
    return this.wholePage(scope, range);
  }

  /** `storedPage` over every month: on SQLite always, on PostgreSQL for what a window left. */
  private async wholePage(scope: MessageScope, range: TimeRange): Promise<PageEntries> {
    // The bodies alone first: every message stored since `body` exists has one, and on SQLite each
    // column read is a property of a row object built per message (a fifth of the read).
    const bodies = await this.run<{ body: string | null }>(wholePage(this.db, scope, range, 'bodies'));
    if (bodies.every((row) => row.body !== null)) return bodies.map((row) => row.body!);
    return this.built(await this.run<StoredRow>(wholePage(this.db, scope, range, 'page')));
  }

  /**
   * The module's catalog row and `storedPage` of its messages (the whole module's), as of one
   * moment or with the module read after the page: whoever the module grants the page to now was
   * granted what it held before. On a server, one statement (one round trip); embedded, the page
   * and then the module (a join would copy the page into a temporary table). No module: undefined.
   */
  async moduleAndPage(moduleSerial: string, range: TimeRange): Promise<{ module: CatalogModule | undefined; page: PageEntries }> {
    if (this.capabilities.embedded) {
      const page = await this.storedPage({ moduleSerial }, range);
      const [module] = await this.run<ModuleRow>(moduleRow(this.db, moduleSerial));
      return { module: module && toModule(module), page };
    }
    const { module, page } = await this.windowed({ moduleSerial }, range, MODULE_COLUMNS);
    return { module: module && toModule(module), page };
  }

  /**
   * PostgreSQL: `storedPage` read first within the window (`PAGE_WINDOW_MS`) before the module's
   * newest message or the page's upper bound, whichever is earlier, with the module's columns asked
   * for, in one statement (one snapshot). The page comes as one text, joined by PostgreSQL: a row
   * per message cost the server process more than the rest of the request. A whole module's read
   * shares its statement with the others in flight (`moduleWindows`); the module's columns come
   * with it whether asked for or not. A page holding messages stored before `body` existed is read
   * again row by row. No module: undefined.
   */
  private async windowed(scope: MessageScope, range: TimeRange, columns: ModuleColumns): Promise<{ module: ModuleRow | undefined; page: PageEntries }> {
    const row =
      scope.deviceId === undefined
        ? await this.moduleWindows[range.before === undefined ? 'newest' : 'bounded'].read({ moduleSerial: scope.moduleSerial, range })
        : (await this.run<ModuleRow & Aggregated>(aggregatedWindow(this.db, scope, range, columns)))[0];
    if (row === undefined) return { module: undefined, page: [] };
    if (row.stored === row.n) return { module: row, page: await this.rest(scope, range, row.bodies === null ? [] : [row.bodies], row.n, row.window_start) };
    // The module's row and the page's rows, each row one or the other.
    const rows = await this.run<ModuleRow & Windowed>(rowsOfWindow(this.db, scope, range, columns));
    const module = rows.find((entry) => entry.id === null);
    return { module, page: module ? await this.completed(scope, range, rows, module.window_start) : [] };
  }

  /** A windowed read's rows as a page, in order, then what the window left (see `rest`). */
  private async completed(scope: MessageScope, range: TimeRange, rows: readonly Windowed[], start: number | null): Promise<PageEntries> {
    // A union keeps each part's order in practice, not by promise: put in order here.
    const messages = rows.filter((row): row is Windowed & StoredRow => row.id !== null).sort((a, b) => b.when_ms - a.when_ms || b.id - a.id);
    return this.rest(scope, range, await this.built(messages), messages.length, start);
  }

  /**
   * A window's `page` of `count` messages, and the messages before the window's start if it held
   * fewer than the page asks for and the page reaches back past it (a module quiet for a month: its
   * messages are read from every month, as they would have been without a window).
   */
  private async rest(scope: MessageScope, range: TimeRange, page: PageEntries, count: number, start: number | null): Promise<PageEntries> {
    if (start === null || count >= range.limit || (range.after !== undefined && Number(start) <= range.after)) return page;
    return [...page, ...(await this.wholePage(scope, { ...range, before: Number(start) + 1, limit: range.limit - count }))];
  }

  /** The page's entries: each stored body, or the columns of messages stored without one. */
  private async built(rows: readonly StoredRow[]): Promise<PageEntries> {
    const unbuilt = rows.filter((row) => row.body === null);
    if (unbuilt.length === 0) return rows.map((row) => row.body!);
    const built = new Map((await historyRows(this.db, unbuilt)).map((row) => [Number(row.id), row]));
    return rows.map((row) => row.body ?? built.get(Number(row.id))!);
  }
}
