import type { Kysely } from 'kysely';
import type { Alert } from '../domain/alerts.js';
import { AlertsRepository } from './alerts-repository.js';
import type { Database, MessageRow } from './schema.js';

/** A stored message with whom it belongs to now: its device's serial and its module's account. */
export type MessageEventRow = MessageRow & { device_serial: string; account_id: number | null };

/** What a live stream may see: one account, optionally only some modules and one device. */
export interface StreamScope {
  accountId: number;
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

/** Whether an event of this module and device belongs to the scope (the account is checked apart). */
export function inScope(scope: StreamScope, moduleSerial: string, deviceSerial: string): boolean {
  if (scope.modules && !scope.modules.has(moduleSerial)) return false;
  return scope.serial === undefined || scope.serial === moduleSerial || scope.serial === deviceSerial;
}
