import type { Kysely } from 'kysely';
import type { Alert } from '../domain/alerts.js';
import { AlertsRepository } from './alerts-repository.js';
import type { Database, MessageRow } from './schema.js';

/** A stored message with whom it belongs to now: its device's serial and its module's account. */
export type MessageEventRow = MessageRow & { device_serial: string; account_id: number | null };

/**
 * A delivery attempt's outcome as a live stream reads it: the row as the attempt left it, with the
 * app's account and the module and device of the message it carries (null for a delivery of
 * something else, such as an alert, whose module is not known here).
 */
export interface DeliveryEventRow {
  id: number;
  uuid: string;
  app_id: number;
  account_id: number;
  message_id: number | null;
  module_serial: string | null;
  device_serial: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  next_attempt_at: number;
  updated_at: number;
}

/** Where a stream stands in the deliveries: the last outcome sent, ordered by (time, id). */
export interface DeliveryCursor {
  at: number;
  id: number;
}

/** What a live stream may see: one account, optionally only some modules and one device. */
export interface StreamScope {
  accountId: number;
  /** Only this app's deliveries (its modules' messages and alerts are narrowed by `modules`). */
  appId?: number;
  /** Whether the stream carries `delivery` events (developer streams do, device streams do not). */
  deliveries?: boolean;
  modules?: ReadonlySet<string>;
  /** A device serial (`C0FE/2`), or a module serial: that module's own and its children's events. */
  serial?: string;
}

/** The reads behind live streams: one message or alert by id, and the replay after a cursor. */
export class StreamEventsRepository {
  private readonly alerts: AlertsRepository;

  constructor(private readonly db: Kysely<Database>) {
    this.alerts = new AlertsRepository(db);
  }

  private messages() {
    return this.db
      .selectFrom('messages')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .innerJoin('modules', 'modules.serial', 'messages.module_serial')
      .selectAll('messages')
      .select(['devices.serial as device_serial', 'modules.account_id']);
  }

  messageById(id: number): Promise<MessageEventRow | undefined> {
    return this.messages().where('messages.id', '=', id).executeTakeFirst();
  }

  /** The alert, with the account holding its module now (null: unregistered since). */
  async alertById(id: number): Promise<{ alert: Alert; accountId: number | null } | undefined> {
    const alert = await this.alerts.byId(id);
    if (!alert) return undefined;
    const module = await this.db.selectFrom('modules').select('account_id').where('serial', '=', alert.moduleSerial).executeTakeFirst();
    return { alert, accountId: module?.account_id ?? null };
  }

  private deliveries() {
    return this.db
      .selectFrom('deliveries')
      .innerJoin('apps', 'apps.id', 'deliveries.app_id')
      .leftJoin('messages', 'messages.id', 'deliveries.message_id')
      .leftJoin('devices', 'devices.id', 'messages.device_id')
      .select([
        'deliveries.id',
        'deliveries.uuid',
        'deliveries.app_id',
        'apps.account_id',
        'deliveries.message_id',
        'messages.module_serial',
        'devices.serial as device_serial',
        'deliveries.status',
        'deliveries.attempts',
        'deliveries.last_status_code',
        'deliveries.last_error',
        'deliveries.last_latency_ms',
        'deliveries.next_attempt_at',
        'deliveries.updated_at',
        'deliveries.lease_owner',
      ]);
  }

  /**
   * The deliveries as their last finished attempt left them (a row never attempted is left out).
   * `at` is when the announcing batch recorded them: the time of a row claimed again since.
   */
  async deliveriesByIds(ids: number[], at: number): Promise<DeliveryEventRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.deliveries().where('deliveries.id', 'in', ids).where('deliveries.attempts', '>', 0).execute();
    return rows.flatMap((row) => deliveryRow(row, at));
  }

  /** The scope's oldest `limit` attempt outcomes after the cursor, oldest first. */
  async deliveriesAfter(scope: StreamScope, after: DeliveryCursor, limit: number): Promise<DeliveryEventRow[]> {
    let query = this.deliveries()
      .where('apps.account_id', '=', scope.accountId)
      .where((eb) => eb.or([eb('deliveries.attempts', '>', 1), eb.and([eb('deliveries.attempts', '=', 1), eb('deliveries.lease_owner', 'is', null)])]))
      .where((eb) => eb.or([eb('deliveries.updated_at', '>', after.at), eb.and([eb('deliveries.updated_at', '=', after.at), eb('deliveries.id', '>', after.id)])]));
    if (scope.appId !== undefined) query = query.where('deliveries.app_id', '=', scope.appId);
    if (scope.serial) {
      const serial = scope.serial;
      query = query.where((eb) => eb.or([eb('messages.module_serial', '=', serial), eb('devices.serial', '=', serial)]));
    }
    const rows = await query.orderBy('deliveries.updated_at').orderBy('deliveries.id').limit(limit).execute();
    return rows.flatMap((row) => deliveryRow(row));
  }

  /** The newest message and alert ids: where a stream's cursor starts. */
  async latest(): Promise<{ message: number; alert: number }> {
    const [message, alert] = await Promise.all([
      this.db.selectFrom('messages').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst(),
      this.db.selectFrom('alerts').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst(),
    ]);
    return { message: Number(message?.id ?? 0), alert: Number(alert?.id ?? 0) };
  }

  /** The scope's newest `limit` messages after `afterId`, oldest first. */
  async messagesAfter(scope: StreamScope, afterId: number, limit: number): Promise<MessageEventRow[]> {
    let query = this.messages().where('modules.account_id', '=', scope.accountId).where('messages.id', '>', afterId);
    if (scope.modules) query = query.where('messages.module_serial', 'in', [...scope.modules, '']);
    if (scope.serial) {
      const serial = scope.serial;
      query = query.where((eb) => eb.or([eb('messages.module_serial', '=', serial), eb('devices.serial', '=', serial)]));
    }
    const rows = await query.orderBy('messages.id', 'desc').limit(limit).execute();
    return rows.reverse();
  }

  /** The scope's newest `limit` alerts after `afterId`, oldest first. */
  async alertsAfter(scope: StreamScope, afterId: number, limit: number): Promise<Alert[]> {
    const page = await this.alerts.list(scope.accountId, { limit: limit * 4, after: afterId, ...(scope.serial && !scope.serial.includes('/') && { module: scope.serial }) });
    return page
      .filter((alert) => inScope(scope, alert.moduleSerial, alert.deviceSerial))
      .slice(0, limit)
      .reverse();
  }
}

// PostgreSQL hands bigint columns back as text: the wire wants numbers.
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * A row as its last finished attempt left it. A row leased again is in flight: its claim counted the
 * next attempt and moved `updated_at`, the rest is still the last outcome's; `at` then stands for
 * the outcome's time (or the claim's, when replaying). A first attempt in flight is no outcome yet.
 */
function deliveryRow({ lease_owner, ...row }: DeliveryEventRow & { lease_owner: string | null }, at?: number): DeliveryEventRow[] {
  const inFlight = lease_owner !== null;
  const attempts = Number(row.attempts) - (inFlight ? 1 : 0);
  if (attempts <= 0) return [];
  return [
    {
      ...row,
      id: Number(row.id),
      app_id: Number(row.app_id),
      account_id: Number(row.account_id),
      message_id: numberOrNull(row.message_id),
      attempts,
      last_status_code: numberOrNull(row.last_status_code),
      last_latency_ms: numberOrNull(row.last_latency_ms),
      next_attempt_at: Number(row.next_attempt_at),
      updated_at: inFlight && at !== undefined ? at : Number(row.updated_at),
    },
  ];
}

/** Whether an event of this module and device belongs to the scope (the account is checked apart). */
export function inScope(scope: StreamScope, moduleSerial: string, deviceSerial: string): boolean {
  if (scope.modules && !scope.modules.has(moduleSerial)) return false;
  return scope.serial === undefined || scope.serial === moduleSerial || scope.serial === deviceSerial;
}
