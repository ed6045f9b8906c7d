import type { Logger } from 'pino';
import type { Alert } from '../../domain/alerts.js';
import type { Notifier } from '../../storage/notifications.js';
import type { DeliveryEventRow, MessageEventRow, StreamScope } from '../../storage/stream-events-repository.js';
import { parseOutcomes } from '../../delivery/delivery-outcomes.js';
import { deliveryEventData } from './delivery-event.js';
import { inScope } from '../../storage/stream-events-repository.js';
import { presentAlert } from '../../wire/alert.js';
import { presentMessage } from '../../wire/message.js';

/** What the hub reads when told of a new message or alert. */
export interface EventSource {
  messageById(id: number): Promise<MessageEventRow | undefined>;
  alertById(id: number): Promise<{ alert: Alert; accountId: number | null } | undefined>;
  deliveriesByIds(ids: number[], at: number): Promise<DeliveryEventRow[]>;
}

/**
 * One event of a live stream: its SSE `event` name, its id parts and its JSON data. A delivery's
 * outcomes share its id, so its place in the stream is its outcome's time and id.
 */
export type StreamEvent = (
  | { type: 'message'; id: number; data: unknown }
  | { type: 'alert'; id: number; data: unknown }
  | { type: 'delivery'; id: number; at: number; data: unknown }
) & {
  /** `data` as JSON, written by the first stream that sends the event and reused by the others. */
  json?: string;
};

export interface Subscriber {
  scope: StreamScope;
  send(event: StreamEvent): void;
}

/** The `message` event's data: the message as history returns it, with its ids. */
export function messageEvent(row: MessageEventRow): StreamEvent {
  return { type: 'message', id: row.id, data: { id: row.id, module: row.module_serial, device: row.device_serial, message: presentMessage(row, row.device_serial) } };
}

export const alertEvent = (alert: Alert): StreamEvent => ({ type: 'alert', id: alert.id, data: presentAlert(alert) });

export const deliveryEvent = (row: DeliveryEventRow): StreamEvent => ({ type: 'delivery', id: row.id, at: row.updated_at, data: deliveryEventData(row) });

/** Whether a delivery belongs to the stream: its account, its app filter, its module or device filter. */
export function deliveryInScope(scope: StreamScope, row: DeliveryEventRow): boolean {
  if (!scope.deliveries || scope.accountId !== row.account_id) return false;
  if (scope.appId !== undefined && scope.appId !== row.app_id) return false;
  if (scope.serial === undefined) return true;
  return scope.serial === row.module_serial || scope.serial === row.device_serial;
}

/** `<id> <module serial>`: what ingest and the watchdog announce on the messages and alerts channels. */
function parse(payload: string): { id: number; module: string } | undefined {
  const [id, module] = payload.split(' ');
  const number = Number(id);
  return Number.isSafeInteger(number) && module ? { id: number, module } : undefined;
}

/**
 * This process's live streams. It listens on the notifier's `messages` and `alerts` channels —
 * on PostgreSQL they carry every process's commits — and, when a stream could care, reads the event
 * once and hands it to every stream whose account holds the module now and whose filters match.
 * Streams of other accounts never see it: the account is checked on every event, after the read.
 */
export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly source: EventSource,
    private readonly notifier: Notifier,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.subscribers.size;
  }

  /** Adds a stream; returns its removal. Listening starts with the first stream. */
  add(subscriber: Subscriber): () => void {
    if (this.unsubscribe.length === 0) {
      this.unsubscribe = [
        this.notifier.subscribe('messages', (payload) => void this.onMessage(payload)),
        this.notifier.subscribe('alerts', (payload) => void this.onAlert(payload)),
        this.notifier.subscribe('delivery_outcomes', (payload) => void this.onOutcomes(payload)),
      ];
    }
    this.subscribers.add(subscriber);
    return () => void this.subscribers.delete(subscriber);
  }

  /** Resolves once notifications published from now on reach this hub. */
  ready(): Promise<void> {
    return this.notifier.ready();
  }

  close(): void {
    for (const stop of this.unsubscribe) stop();
    this.unsubscribe = [];
    this.subscribers.clear();
  }

  private interested(module: string): Subscriber[] {
    return [...this.subscribers].filter((s) => !s.scope.modules || s.scope.modules.has(module));
  }

  private async onMessage(payload: string): Promise<void> {
    const announced = parse(payload);
    if (!announced || this.interested(announced.module).length === 0) return;
    try {
      const row = await this.source.messageById(announced.id);
      if (!row || row.account_id === null) return;
      const event = messageEvent(row);
      this.dispatch(row.account_id, row.module_serial, row.device_serial, event);
    } catch (error) {
      this.log.warn({ err: error, message: announced.id }, 'live streams could not read a new message');
    }
  }

  private async onAlert(payload: string): Promise<void> {
    const announced = parse(payload);
    if (!announced || this.interested(announced.module).length === 0) return;
    try {
      const found = await this.source.alertById(announced.id);
      if (!found || found.accountId === null || found.accountId !== found.alert.accountId) return;
      this.dispatch(found.accountId, found.alert.moduleSerial, found.alert.deviceSerial, alertEvent(found.alert));
    } catch (error) {
      this.log.warn({ err: error, alert: announced.id }, 'live streams could not read an alert');
    }
  }

  /** Outcomes are announced by id only (the worker does not know modules): read when a stream wants deliveries. */
  private async onOutcomes(payload: string): Promise<void> {
    const { at, ids } = parseOutcomes(payload);
    if (ids.length === 0 || ![...this.subscribers].some((s) => s.scope.deliveries)) return;
    try {
      const rows = await this.source.deliveriesByIds(ids, at);
      rows.sort((a, b) => a.updated_at - b.updated_at || a.id - b.id);
      for (const row of rows) {
        const event = deliveryEvent(row);
        for (const subscriber of this.subscribers) if (deliveryInScope(subscriber.scope, row)) subscriber.send(event);
      }
    } catch (error) {
      this.log.warn({ err: error, deliveries: ids.length }, 'live streams could not read delivery outcomes');
    }
  }

  private dispatch(accountId: number, moduleSerial: string, deviceSerial: string, event: StreamEvent): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.scope.accountId === accountId && inScope(subscriber.scope, moduleSerial, deviceSerial)) subscriber.send(event);
    }
  }
}
