import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import { decodeTags } from '../domain/labels.js';
import type { ModuleFilter, ModuleListPage, ModuleListQuery } from '../domain/module-list.js';
import type { Health } from '../domain/types.js';
import type { Database } from './schema.js';

const DAY_MS = 86_400_000;

type From = ExpressionBuilder<Database & { m: Database['modules']; d: Database['devices'] }, 'm' | 'd'>;

/** `LIKE` pattern text with its wildcards taken literally (both dialects get `ESCAPE '\'`). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The developer's module list: filter, sort and page over modules joined with their own device,
 * every column of the table (open alerts and children counted by correlated subqueries, the total
 * by a window function) in one query.
 */
export class ModuleListRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private filtered(accountId: number, filter: ModuleFilter, now: number) {
    return this.db
      .selectFrom('modules as m')
      .innerJoin('devices as d', (join) => join.onRef('d.module_serial', '=', 'm.serial').on('d.idx', '=', 0))
      .where('m.account_id', '=', accountId)
      .where((eb) => eb.and(conditions(eb, filter, now)));
  }

  async page(accountId: number, query: ModuleListQuery, now = Date.now()): Promise<ModuleListPage> {
    const direction = query.descending ? 'desc' : 'asc';
    const rows = await this.filtered(accountId, query, now)
      .select((eb) => [
        'm.serial',
        'm.protocol',
        'd.id',
        'd.name',
        'd.tags',
        'd.lastseen',
        'd.battery',
        'd.level',
        'd.network',
        'd.active',
        'd.watched',
        'd.msgs',
        'd.losts',
        openAlerts(eb).as('alerts'),
        eb.selectFrom('devices as c').select((c) => c.fn.countAll<number>().as('n')).whereRef('c.module_serial', '=', 'm.serial').where('c.idx', '>', 0).as('children'),
        sql<number>`count(*) over ()`.as('total'),
      ])
      .$call((q) => {
        switch (query.sort) {
          case 'lastseen': // never seen: last when newest first, first when oldest first
            return q.orderBy(sql`coalesce(d.lastseen, 0)`, direction);
          case 'alerts':
            return q.orderBy('alerts', direction).orderBy(sql`coalesce(d.lastseen, 0)`, 'desc');
          case 'battery': // low, unknown, fine
            return q.orderBy(sql`CASE d.battery WHEN 'OFF' THEN 0 WHEN 'ON' THEN 2 ELSE 1 END`, direction);
          case 'name': // unnamed modules last either way
            return q.orderBy(sql`CASE WHEN d.name IS NULL THEN 1 ELSE 0 END`).orderBy(sql`lower(d.name)`, direction);
          case 'serial':
            return q.orderBy('m.serial', direction);
        }
      })
      .orderBy('m.serial')
      .limit(query.limit)
      .offset(query.offset)
      .execute();
    const total = rows[0]?.total ?? (query.offset === 0 ? 0 : await this.count(accountId, query, now));
    return {
      total: Number(total),
      modules: rows.map((row) => ({
        id: row.id,
        serial: row.serial,
        protocol: row.protocol,
        name: row.name,
        tags: decodeTags(row.tags),
        lastseen: row.lastseen === null ? null : new Date(Number(row.lastseen)),
        battery: row.battery as Health,
        level: row.level as Health,
        network: row.network as Health,
        active: row.active === 1,
        watched: row.watched === 1,
        msgs: row.msgs,
        losts: row.losts,
        alerts: Number(row.alerts ?? 0),
        children: Number(row.children ?? 0),
      })),
    };
  }

  /** Past the last page the window has no row to count on. */
  private async count(accountId: number, filter: ModuleFilter, now: number): Promise<number> {
    const row = await this.filtered(accountId, filter, now).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Every matching serial, for "attach all that match" and bulk tagging. */
  async serials(accountId: number, filter: ModuleFilter, now = Date.now()): Promise<string[]> {
    const rows = await this.filtered(accountId, filter, now).select('m.serial').orderBy('m.serial').execute();
    return rows.map((row) => row.serial);
  }
}

const alertsOf = (eb: From) => eb.selectFrom('alerts as a').whereRef('a.module_serial', '=', 'm.serial').where('a.ended_at', 'is', null);
const openAlerts = (eb: From) => alertsOf(eb).select((a) => a.fn.countAll<number>().as('n'));

function conditions(eb: From, filter: ModuleFilter, now: number): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [];
  if (filter.search !== undefined) {
    const lower = filter.search.toLowerCase();
    const prefix = `${literal(filter.search.toUpperCase())}%`;
    const part = `%${literal(lower)}%`;
    const tag = `% ${literal(lower)} %`;
    // The module or one of its children, by serial, name or tag.
    where.push(
      eb.exists(
        eb
          .selectFrom('devices as x')
          .select(sql`1`.as('one'))
          .whereRef('x.module_serial', '=', 'm.serial')
          .where(sql<SqlBool>`(x.serial LIKE ${prefix} ESCAPE '\\' OR lower(x.name) LIKE ${part} ESCAPE '\\' OR x.tags LIKE ${tag} ESCAPE '\\')`),
      ),
    );
  }
  if (filter.tag !== undefined) {
    where.push(
      eb.exists(
        eb
          .selectFrom('devices as t')
          .select(sql`1`.as('one'))
          .whereRef('t.module_serial', '=', 'm.serial')
          .where(sql<SqlBool>`t.tags LIKE ${`% ${literal(filter.tag)} %`} ESCAPE '\\'`),
      ),
    );
  }
  if (filter.app !== undefined) where.push(eb.exists(attachedTo(eb, filter.app)));
  if (filter.notApp !== undefined) where.push(eb.not(eb.exists(attachedTo(eb, filter.notApp))));
  switch (filter.state) {
    case 'alerting':
      where.push(eb.exists(alertsOf(eb).select(sql`1`.as('one'))));
      break;
    case 'low-battery':
      where.push(eb('d.battery', '=', 'OFF'));
      break;
    case 'seen-24h':
      where.push(eb('d.lastseen', '>=', now - DAY_MS));
      break;
    case 'silent':
      where.push(eb.or([eb('d.lastseen', 'is', null), eb('d.lastseen', '<', now - DAY_MS)]));
      break;
    case 'never-seen':
      where.push(eb('d.lastseen', 'is', null));
      break;
    case 'inactive':
      where.push(eb('d.active', '=', 0));
      break;
    case 'watched':
      where.push(eb('d.watched', '=', 1));
      break;
    case undefined:
      break;
  }
  return where;
}

function attachedTo(eb: From, appId: number) {
  return eb.selectFrom('app_modules as am').select(sql`1`.as('one')).whereRef('am.module_serial', '=', 'm.serial').where('am.app_id', '=', appId);
}
