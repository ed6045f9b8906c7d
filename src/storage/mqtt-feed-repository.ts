import type { Kysely } from 'kysely';
import type { Alert } from '../domain/alerts.js';
import { AlertsRepository } from './alerts-repository.js';
import type { Database, MessageRow } from './schema.js';

/** A message to publish for one app it is attached to. */
export type FeedMessage = MessageRow & { device_serial: string; app_id: number };

const CURSORS = { messages: 'mqtt.cursor.messages', alerts: 'mqtt.cursor.alerts' } as const;
export type FeedKind = keyof typeof CURSORS;

/**
 * What the MQTT bridge publishes, read from the tables ingest writes: messages and alerts after a
 * durable cursor (kept in `settings`), each for every app its module is attached to. The cursor moves
 * only after the broker acknowledged everything before it, so nothing stored while the broker is
 * down is lost.
 */
export class MqttFeedRepository {
  private readonly alerts: AlertsRepository;

  constructor(private readonly db: Kysely<Database>) {
    this.alerts = new AlertsRepository(db);
  }

  /** The cursor; the first time, the newest id now (history before the bridge existed is not published). */
  async cursor(kind: FeedKind): Promise<number> {
    const row = await this.db.selectFrom('settings').select('value').where('name', '=', CURSORS[kind]).executeTakeFirst();
    if (row) return Number(row.value);
    const table = kind === 'messages' ? 'messages' : 'alerts';
    const newest = await this.db.selectFrom(table).select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    const start = Number(newest?.id ?? 0);
    await this.setCursor(kind, start);
    return start;
  }

  async setCursor(kind: FeedKind, id: number): Promise<void> {
    await this.db
      .insertInto('settings')
      .values({ name: CURSORS[kind], value: String(id) })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: String(id) }))
      .execute();
  }

  /**
   * Messages after the cursor that are at least `settleMs` old (by reception time): on PostgreSQL
   * ids are taken before commit, so a younger one may still have an older neighbour to come.
   */
  messagesAfter(afterId: number, settledBefore: number, limit: number): Promise<{ id: number; rows: FeedMessage[] }[]> {
    return this.db
      .selectFrom('messages')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .leftJoin('app_modules', 'app_modules.module_serial', 'messages.module_serial')
      .selectAll('messages')
      .select(['devices.serial as device_serial', 'app_modules.app_id'])
      .where('messages.id', '>', afterId)
      .where('messages.when_ms', '<', settledBefore)
      .orderBy('messages.id')
      .limit(limit)
      .execute()
      .then((rows) => complete(group(rows, (row) => row.id, (row) => (row.app_id === null ? undefined : ({ ...row, app_id: row.app_id } as FeedMessage))), rows.length === limit));
  }

  /** Alerts raised after the cursor, at least `settleMs` old, with the apps of their module. */
  async alertsAfter(afterId: number, settledBefore: number, limit: number): Promise<{ id: number; alert: Alert; apps: number[] }[]> {
    const ids = await this.db
      .selectFrom('alerts')
      .leftJoin('app_modules', 'app_modules.module_serial', 'alerts.module_serial')
      .select(['alerts.id', 'app_modules.app_id'])
      .where('alerts.id', '>', afterId)
      .where('alerts.raised_at', '<', settledBefore)
      .orderBy('alerts.id')
      .limit(limit)
      .execute();
    const result: { id: number; alert: Alert; apps: number[] }[] = [];
    for (const { id, rows } of complete(group(ids, (row) => row.id, (row) => row.app_id ?? undefined), ids.length === limit)) {
      const alert = await this.alerts.byId(id);
      if (alert) result.push({ id, alert, apps: rows });
    }
    return result;
  }
}

/**
 * Sets the module's bidir value when the module is attached to the app and registered to the app's
 * account; false otherwise (the command names something it may not touch).
 */
export async function setBidirForApp(db: Kysely<Database>, appId: number, serial: string, value: string | null): Promise<boolean> {
  const attached = await db
    .selectFrom('app_modules')
    .innerJoin('apps', 'apps.id', 'app_modules.app_id')
    .innerJoin('modules', 'modules.serial', 'app_modules.module_serial')
    .select('modules.serial')
    .where('app_modules.app_id', '=', appId)
    .where('app_modules.module_serial', '=', serial)
    .whereRef('modules.account_id', '=', 'apps.account_id')
    .executeTakeFirst();
  if (!attached) return false;
  await db.updateTable('devices').set({ bidirval: value }).where('module_serial', '=', serial).where('idx', '=', 0).execute();
  return true;
}

/** Rows in id order, grouped by id (one per attached app), keeping ids without any. */
function group<R, T>(rows: R[], id: (row: R) => number, keep: (row: R) => T | undefined): { id: number; rows: T[] }[] {
  const groups: { id: number; rows: T[] }[] = [];
  for (const row of rows) {
    const key = id(row);
    let last = groups[groups.length - 1];
    if (last?.id !== key) groups.push((last = { id: key, rows: [] }));
    const kept = keep(row);
    if (kept !== undefined) last.rows.push(kept);
  }
  return groups;
}

/** A page cut at its limit may hold only some of its last id's rows: that id waits for the next page. */
function complete<T>(groups: T[], full: boolean): T[] {
  return full && groups.length > 1 ? groups.slice(0, -1) : groups;
}
