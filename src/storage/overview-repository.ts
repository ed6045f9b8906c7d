import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { FailingApp, ModuleCounts, OverviewStore } from '../domain/overview.js';
import type { Database } from './schema.js';

const HOUR_S = 3600;

/**
 * The overview's queries. Each starts from an index on the account (modules_account,
 * alerts_account_open, apps_account → deliveries_app_failed, modules_account → raw_messages_history),
 * so its cost follows the account's fleet and what is open or failed, never the tables' history.
 */
export class OverviewRepository implements OverviewStore {
  constructor(private readonly db: Kysely<Database>) {}

  async moduleCounts(accountId: number, seenSince: number): Promise<ModuleCounts> {
    const row = await this.db
      .selectFrom('modules as m')
      .innerJoin('devices as d', (join) => join.onRef('d.module_serial', '=', 'm.serial').on('d.idx', '=', 0))
      .where('m.account_id', '=', accountId)
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        sql<number>`sum(CASE WHEN d.lastseen >= ${seenSince} THEN 1 ELSE 0 END)`.as('seen'),
        sql<number>`sum(CASE WHEN d.lastseen IS NULL THEN 1 ELSE 0 END)`.as('never'),
        sql<number>`sum(CASE WHEN d.battery = 'OFF' THEN 1 ELSE 0 END)`.as('low'),
      ])
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), seen24h: Number(row.seen ?? 0), neverSeen: Number(row.never ?? 0), lowBattery: Number(row.low ?? 0) };
  }

  async openAlertCounts(accountId: number): Promise<{ open: number; lostContact: number }> {
    const row = await this.db
      .selectFrom('alerts')
      .where('account_id', '=', accountId)
      .where('ended_at', 'is', null)
      .select((eb) => [eb.fn.countAll<number>().as('open'), sql<number>`sum(CASE WHEN kind = 'lost_contact' THEN 1 ELSE 0 END)`.as('lost')])
      .executeTakeFirstOrThrow();
    return { open: Number(row.open), lostContact: Number(row.lost ?? 0) };
  }

  /**
   * Per app of the account (a few): its failed deliveries counted over the partial index of failed
   * ones, and the newest of them for the time and the error — never a scan of the delivery log.
   */
  async failingApps(accountId: number, limit: number): Promise<{ failed: number; apps: FailingApp[] }> {
    const failed = (eb: ExpressionBuilder<Database & { a: Database['apps'] }, 'a'>) =>
      eb.selectFrom('deliveries as x').whereRef('x.app_id', '=', 'a.id').where('x.status', '=', sql.lit('failed'));
    const rows = await this.db
      .selectFrom('apps as a')
      .where('a.account_id', '=', accountId)
      .select((eb) => [
        'a.id',
        'a.name',
        failed(eb)
          .select((x) => x.fn.countAll<number>().as('n'))
          .as('failed'),
        failed(eb).select('x.updated_at').orderBy('x.id', 'desc').limit(1).as('last_at'),
        failed(eb).select('x.last_error').orderBy('x.id', 'desc').limit(1).as('last_error'),
      ])
      .execute();
    const apps = rows
      .filter((row) => Number(row.failed) > 0)
      .map((row) => ({
        id: row.id,
        name: row.name,
        failed: Number(row.failed),
        lastFailed: row.last_at === null ? null : new Date(Number(row.last_at)),
        lastError: row.last_error ?? null,
      }))
      .sort((a, b) => (b.lastFailed?.getTime() ?? 0) - (a.lastFailed?.getTime() ?? 0));
    return { failed: apps.reduce((sum, app) => sum + app.failed, 0), apps: apps.slice(0, limit) };
  }

  async uplinksPerHour(accountId: number, sinceS: number): Promise<Map<number, number>> {
    const hour = sql<number>`r.time_s / ${sql.lit(HOUR_S)}`;
    const rows = await this.db
      .selectFrom('modules as m')
      .innerJoin('raw_messages as r', (join) => join.onRef('r.module_serial', '=', 'm.serial').on('r.time_s', '>=', sinceS))
      .where('m.account_id', '=', accountId)
      .select((eb) => [hour.as('hour'), eb.fn.countAll<number>().as('n')])
      .groupBy(hour)
      .execute();
    return new Map(rows.map((row) => [Math.floor(Number(row.hour)), Number(row.n)]));
  }
}
