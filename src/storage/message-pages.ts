import { CompiledQuery, sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { CatalogModule } from '../domain/types.js';
import type { Database, MessageRow, ModuleRow } from './schema.js';
import { markHot } from './hot-statements.js';
import type { Capabilities } from './capabilities.js';
import { MODULE_COLUMNS, toModule } from './modules-repository.js';

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

/** What the device API's history shows of a message. */
const HISTORY_COLUMNS = [
  'messages.id',
  'messages.device_id',
  'messages.when_ms',
  'messages.time_s',
  'messages.lvl',
  'messages.station',
  'messages.type',
  'messages.frame',
  'messages.custom',
  'messages.contrib',
  'messages.ctxt',
] as const;
export type HistoryRow = Pick<MessageRow, 'id' | 'device_id' | 'when_ms' | 'time_s' | 'lvl' | 'station' | 'type' | 'frame' | 'custom' | 'contrib' | 'ctxt'> & {
  device_serial: string;
};

/** A row of a page: the message's key and its stored wire form (null when stored without one). */
type StoredRow = { id: number; when_ms: number; body: string | null };

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

  private static pageParameters(key: string | number, range: TimeRange): unknown[] {
    return [key, ...(range.before !== undefined ? [range.before] : []), ...(range.after !== undefined ? [range.after] : []), range.limit];
  }

  /**
   * `history` for the device API: the same keyset scan, reading only each message's stored wire
   * form (`body`), one text column instead of a dozen and no join. Rows stored before `body`
   * existed come back as their columns (with their device's serial) for the caller to build.
   */
  async storedPage(scope: MessageScope, range: TimeRange): Promise<(string | HistoryRow)[]> {
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
    const query = this.compiledOnce(
      `module and page ${range.before !== undefined} ${range.after !== undefined}`,
      () =>
        this.db
          .selectFrom('modules')
          .select([...MODULE_COLUMNS, sql<number | null>`NULL::bigint`.as('id'), sql<number | null>`NULL::bigint`.as('when_ms'), sql<string | null>`NULL::text`.as('body')])
          .where('serial', '=', moduleSerial)
          .unionAll(
            this.db
              .selectFrom(this.pageQuery({ moduleSerial }, range).as('p'))
              .select([...MODULE_COLUMNS.map((column) => sql<never>`NULL`.as(column)), 'p.id', 'p.when_ms', 'p.body']),
          ),
      [moduleSerial, ...MessagePages.pageParameters(moduleSerial, range)],
    );
    const rows = (await this.db.executeQuery(query)).rows as (ModuleRow & { id: number | null; when_ms: number | null; body: string | null })[];
    const module = rows.find((row) => row.id === null);
    if (module === undefined) return { module: undefined, page: [] };
    // A union keeps each part's order in practice, not by promise: put in order here.
    const messages = rows.filter((row): row is typeof row & StoredRow => row.id !== null).sort((a, b) => b.when_ms - a.when_ms || b.id - a.id);
    return { module: toModule(module), page: await this.built(messages) };
  }

  /** The page's entries: each stored body, or the columns of messages stored without one. */
  private async built(rows: readonly StoredRow[]): Promise<(string | HistoryRow)[]> {
    const unbuilt = rows.filter((row) => row.body === null);
    if (unbuilt.length === 0) return rows.map((row) => row.body!);
    const built = new Map((await this.historyRows(unbuilt)).map((row) => [Number(row.id), row]));
    return rows.map((row) => row.body ?? built.get(Number(row.id))!);
  }

  private pageQuery(scope: MessageScope, range: TimeRange, columns: readonly ('id' | 'when_ms' | 'body')[] = ['id', 'when_ms', 'body']) {
    let query = this.db.selectFrom('messages').select(columns);
    query = scope.deviceId !== undefined ? query.where('device_id', '=', scope.deviceId) : query.where('module_serial', '=', scope.moduleSerial);
    if (range.before !== undefined) query = query.where('when_ms', '<', range.before);
    if (range.after !== undefined) query = query.where('when_ms', '>', range.after);
    query = scope.deviceId !== undefined ? query.orderBy('device_id', 'desc') : query.orderBy('module_serial', 'desc');
    return query.orderBy('when_ms', 'desc').orderBy('id', 'desc').limit(range.limit);
  }

  /** The wire columns of the messages given by id and time (the time bounds prune partitions on PostgreSQL). */
  private historyRows(keys: readonly { id: number; when_ms: number }[]): Promise<HistoryRow[]> {
    const times = keys.map((key) => Number(key.when_ms));
    return this.db
      .selectFrom('messages')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .select([...HISTORY_COLUMNS, 'devices.serial as device_serial'])
      .where('messages.id', 'in', keys.map((key) => key.id))
      .where('messages.when_ms', '>=', Math.min(...times))
      .where('messages.when_ms', '<=', Math.max(...times))
      .execute();
  }
}
