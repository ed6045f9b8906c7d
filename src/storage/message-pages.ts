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

/**
 * A page of messages, newest first: its JSON text, or its entries, each a stored wire form or, for
 * a message stored without one, the columns to build it from.
 */
export type StoredPage = string | (string | HistoryRow)[];

/** A row of a page: the message's key and its stored wire form (null when stored without one). */
type StoredRow = { id: number; when_ms: number; body: string | null };

/** The page's stored bodies joined in order by `,`; how many messages it holds and how many have one (text on PostgreSQL). */
type PageText = { page: string | null; messages: number | string; bodies: number | string };

/**
 * The device API's history reads, its hottest queries: each compiled once per shape and rerun with
 * new values, as a named statement on PostgreSQL.
 *
 * On a server the database joins the page's stored bodies into one text (`string_agg`): one row
 * to send and parse instead of a row per message, which cost the client and the server more than
 * the join. Embedded, SQLite sorts the joined rows again in a temporary b-tree to honour the
 * aggregate's ORDER BY, which costs more than taking the rows as they come: the rows are read and
 * joined here.
 */
export class MessagePages {
  /** SQL text per query shape. */
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Pick<Capabilities, 'embedded'>,
  ) {}

  /** The keyset scan on (module_serial|device_id, when_ms, id), reading each message's stored wire form (`body`) only. */
  async storedPage(scope: MessageScope, range: TimeRange): Promise<StoredPage> {
    if (this.capabilities.embedded) return this.entries(scope, range);
    const query = this.compiledOnce(`text ${shape(scope, range)}`, () => this.textQuery(scope, range), parameters(scope, range));
    const [row] = (await this.db.executeQuery(query)).rows as PageText[];
    return pageJson(row!) ?? this.entries(scope, range);
  }

  /**
   * The module's catalog row and `storedPage` of its messages (the whole module's), as of one
   * moment or with the module read after the page: whoever the module grants the page to now was
   * granted what it held before. On a server, one statement; embedded (or when some message has no
   * stored body), the page and then the module. No module: undefined.
   */
  async moduleAndPage(moduleSerial: string, range: TimeRange): Promise<{ module: CatalogModule | undefined; page: StoredPage }> {
    const scope = { moduleSerial };
    if (!this.capabilities.embedded) {
      const query = this.compiledOnce(
        `module and text ${shape(scope, range)}`,
        () =>
          this.db
            .selectFrom(['modules as m', this.textQuery(scope, range).as('t')])
            .select(MODULE_COLUMNS.map((column) => `m.${column}` as const))
            .select(['t.page', 't.messages', 't.bodies'])
            .where('m.serial', '=', moduleSerial),
        [...parameters(scope, range), moduleSerial],
      );
      const [row] = (await this.db.executeQuery(query)).rows as (ModuleRow & PageText)[];
      if (row === undefined) return { module: undefined, page: [] };
      const text = pageJson(row);
      if (text !== undefined) return { module: toModule(row), page: text };
    }
    const page = await this.entries(scope, range);
    const query = this.compiledOnce('module', () => this.db.selectFrom('modules').select(MODULE_COLUMNS).where('serial', '=', moduleSerial), [moduleSerial]);
    const [module] = (await this.db.executeQuery(query)).rows as ModuleRow[];
    return { module: module && toModule(module), page };
  }

  /** The page as rows: each stored body, or the columns of a message stored without one. */
  private async entries(scope: MessageScope, range: TimeRange): Promise<(string | HistoryRow)[]> {
    const query = this.compiledOnce(`rows ${shape(scope, range)}`, () => this.rowsQuery(scope, range), parameters(scope, range));
    const rows = (await this.db.executeQuery(query)).rows as StoredRow[];
    const unbuilt = rows.filter((row) => row.body === null);
    if (unbuilt.length === 0) return rows.map((row) => row.body!);
    const built = new Map((await this.historyRows(unbuilt)).map((row) => [Number(row.id), row]));
    return rows.map((row) => row.body ?? built.get(Number(row.id))!);
  }

  /**
   * The query's SQL text, compiled once per shape and rerun with new values (building and compiling
   * cost a quarter of the page query's run time). Each text runs as a named statement on PostgreSQL.
   */
  private compiledOnce(shape: string, build: () => { compile(): { sql: string; parameters: readonly unknown[] } }, values: unknown[]): CompiledQuery {
    let text = this.texts.get(shape);
    if (text === undefined) {
      const compiled = build().compile();
      // The compiled query binds its values in the order they were added, the order of `values`.
      if (compiled.parameters.length !== values.length || compiled.parameters.some((value, i) => value !== values[i])) {
        throw new Error(`history query binds ${JSON.stringify(compiled.parameters)}, expected ${JSON.stringify(values)}`);
      }
      text = compiled.sql;
      this.texts.set(shape, text);
      markHot(text);
    }
    return CompiledQuery.raw(text, values);
  }

  private rowsQuery(scope: MessageScope, range: TimeRange) {
    let query = this.db.selectFrom('messages').select(['id', 'when_ms', 'body']);
    query = scope.deviceId !== undefined ? query.where('device_id', '=', scope.deviceId) : query.where('module_serial', '=', scope.moduleSerial);
    if (range.before !== undefined) query = query.where('when_ms', '<', range.before);
    if (range.after !== undefined) query = query.where('when_ms', '>', range.after);
    query = scope.deviceId !== undefined ? query.orderBy('device_id', 'desc') : query.orderBy('module_serial', 'desc');
    return query.orderBy('when_ms', 'desc').orderBy('id', 'desc').limit(range.limit);
  }

  /** The page's bodies joined in the page's order, with the counts that tell whether every message had one. */
  private textQuery(scope: MessageScope, range: TimeRange) {
    return this.db.selectFrom(this.rowsQuery(scope, range).as('p')).select((eb) => [
      eb.fn.agg<string | null>('string_agg', ['p.body', sql.lit(',')]).orderBy('p.when_ms', 'desc').orderBy('p.id', 'desc').as('page'),
      eb.fn.countAll<number | string>().as('messages'),
      eb.fn.count<number | string>('p.body').as('bodies'),
    ]);
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

const shape = (scope: MessageScope, range: TimeRange): string => `${scope.deviceId !== undefined} ${range.before !== undefined} ${range.after !== undefined}`;

const parameters = (scope: MessageScope, range: TimeRange): unknown[] => [
  scope.deviceId ?? scope.moduleSerial,
  ...(range.before !== undefined ? [range.before] : []),
  ...(range.after !== undefined ? [range.after] : []),
  range.limit,
];

/** The page's JSON text, or undefined when some of its messages have no stored body. */
function pageJson({ page, messages, bodies }: PageText): string | undefined {
  if (Number(messages) !== Number(bodies)) return undefined;
  return page === null ? '[]' : `[${page}]`;
}
