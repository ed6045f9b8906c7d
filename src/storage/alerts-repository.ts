import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Alert, AlertKind, AlertPage } from '../domain/alerts.js';
import type { AlertRow, Database } from './schema.js';
import { publish } from './notifications.js';

/** An alert's row with its device's serial and name, as the API shows it. */
export type AlertWithDevice = AlertRow & { device_serial: string; device_name: string | null };

export const toAlert = (row: AlertWithDevice): Alert => ({
  id: row.id,
  accountId: row.account_id,
  moduleSerial: row.module_serial,
  deviceId: row.device_id,
  deviceSerial: row.device_serial,
  deviceName: row.device_name,
  kind: row.kind as AlertKind,
  message: row.message,
  raised: new Date(row.raised_at),
  messageId: row.message_id,
  ended: row.ended_at === null ? null : new Date(row.ended_at),
  endMessage: row.end_message,
  acked: row.acked_at === null ? null : new Date(row.acked_at),
});

/** An alert to raise: the device, its module and owner, what happened and when. */
export interface NewAlert {
  accountId: number;
  moduleSerial: string;
  deviceId: number;
  kind: AlertKind;
  message: string;
  at: number;
  messageId?: number;
}

/**
 * Alerts: raising and ending run on the caller's transaction (the ingest transaction, or the
 * watchdog's), so an alert and the device's `alerts` counter never disagree.
 */
export class AlertsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Raises the alert unless one of its kind is open on the device (the partial unique index decides,
   * so two processes racing raise it once); counts it on the device. The alert, or undefined.
   */
  static async raise(trx: Kysely<Database>, alert: NewAlert): Promise<Alert | undefined> {
    const row = await trx
      .insertInto('alerts')
      .values({
        account_id: alert.accountId,
        module_serial: alert.moduleSerial,
        device_id: alert.deviceId,
        kind: alert.kind,
        message: alert.message,
        raised_at: alert.at,
        message_id: alert.messageId ?? null,
        // Read in the same statement: an alert of an account asking for email waits for the alert mailer.
        email_pending: sql<number>`coalesce((select email from alert_settings where account_id = ${alert.accountId}), 0)`,
      })
      .onConflict((oc) => oc.columns(['device_id', 'kind']).where('ended_at', 'is', null).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const device = await trx
      .updateTable('devices')
      .set((eb) => ({ alerts: eb('alerts', '+', 1) }))
      .where('id', '=', alert.deviceId)
      .returning(['serial', 'name'])
      .executeTakeFirstOrThrow();
    return toAlert({ ...row, device_serial: device.serial, device_name: device.name });
  }

  /** Ends the device's open alerts of these kinds; the ended ones. */
  static async end(trx: Kysely<Database>, deviceId: number, kinds: readonly AlertKind[], text: string, at: number): Promise<Alert[]> {
    if (kinds.length === 0) return [];
    const rows = await trx
      .updateTable('alerts')
      .set({ ended_at: at, end_message: text })
      .where('device_id', '=', deviceId)
      .where('kind', 'in', [...kinds])
      .where('ended_at', 'is', null)
      .returningAll()
      .execute();
    if (rows.length === 0) return [];
    const device = await trx.selectFrom('devices').select(['serial', 'name']).where('id', '=', deviceId).executeTakeFirstOrThrow();
    return rows.map((row) => toAlert({ ...row, device_serial: device.serial, device_name: device.name }));
  }

  /** An account's alerts, newest first, optionally of one module only. */
  async list(accountId: number, page: AlertPage): Promise<Alert[]> {
    let query = this.db
      .selectFrom('alerts')
      .innerJoin('devices', 'devices.id', 'alerts.device_id')
      .selectAll('alerts')
      .select(['devices.serial as device_serial', 'devices.name as device_name'])
      .where('alerts.account_id', '=', accountId);
    if (page.module !== undefined) query = query.where('alerts.module_serial', '=', page.module);
    if (page.before !== undefined) query = query.where('alerts.id', '<', page.before);
    if (page.after !== undefined) query = query.where('alerts.id', '>', page.after);
    if (page.open) query = query.where('alerts.ended_at', 'is', null);
    if (page.kind !== undefined) query = query.where('alerts.kind', '=', page.kind);
    const rows = await query.orderBy('alerts.id', 'desc').limit(page.limit).execute();
    return rows.map(toAlert);
  }

  async byId(id: number): Promise<Alert | undefined> {
    return (await AlertsRepository.byIds(this.db, [id]))[0];
  }

  /** Alerts by id, in id order (those that exist). */
  static async byIds(db: Kysely<Database>, ids: readonly number[]): Promise<Alert[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('alerts')
      .innerJoin('devices', 'devices.id', 'alerts.device_id')
      .selectAll('alerts')
      .select(['devices.serial as device_serial', 'devices.name as device_name'])
      .where('alerts.id', 'in', [...ids])
      .orderBy('alerts.id')
      .execute();
    return rows.map(toAlert);
  }

  /**
   * Acknowledges the device's alerts (all of them, or one): each is marked, and the device's
   * `alerts_ack` counts the acknowledged ones, so acknowledging all sets it to `alerts`.
   */
  async acknowledge(deviceId: number, alertId?: number, now = Date.now()): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      let update = trx.updateTable('alerts').set({ acked_at: now }).where('device_id', '=', deviceId).where('acked_at', 'is', null);
      if (alertId !== undefined) update = update.where('id', '=', alertId);
      const rows = await update.returning(['id', 'module_serial']).execute();
      const acked = rows.length;
      // Live streams show acknowledgements too.
      for (const row of rows) await publish(trx, 'alerts', `${row.id} ${row.module_serial}`);
      // All of them: the counter catches up with `alerts`, alerts pruned from the table included.
      await trx
        .updateTable('devices')
        .set((eb) => ({ alerts_ack: alertId === undefined ? eb.ref('alerts') : sql<number>`CASE WHEN alerts_ack + ${acked} < alerts THEN alerts_ack + ${acked} ELSE alerts END` }))
        .where('id', '=', deviceId)
        .execute();
      return acked;
    });
  }

  async setModulePeriod(serial: string, periodS: number | null): Promise<void> {
    await this.db.updateTable('modules').set({ watch_period_s: periodS }).where('serial', '=', serial).execute();
  }

  async setAppPeriod(appId: number, periodS: number | null): Promise<void> {
    await this.db.updateTable('apps').set({ watch_period_s: periodS }).where('id', '=', appId).execute();
  }
}
