import type { App } from './types.js';
import { badRequest, conflict, notFound } from './errors.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One callback of one message (or one alert) to one app, and how sending it went. */
export interface Delivery {
  id: number;
  /** sent as X-Snsr-Delivery, the same on every attempt */
  uuid: string;
  appId: number;
  /** what it carries: a message, or an alert (body of type "alert") */
  kind: 'message' | 'alert';
  /** the message delivered; null for an alert */
  messageId: number | null;
  /** the alert delivered; null for a message */
  alertId: number | null;
  /** the message's time, or the time the alert was raised */
  when: Date;
  status: DeliveryStatus;
  /** sends made so far */
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** when it is due next; null unless pending */
  nextAttempt: Date | null;
  created: Date;
  delivered: Date | null;
}

export interface DeliveryPage {
  limit: number;
  /** only deliveries with a smaller id (older) */
  before?: number;
  status?: DeliveryStatus;
}

export interface DeliveryQuery {
  limit?: number;
  before?: number;
  status?: string;
}

/** What the service needs from storage. */
export interface DeliveryLog {
  list(appId: number, page: DeliveryPage): Promise<Delivery[]>;
  byId(id: number): Promise<Delivery | undefined>;
  requeue(id: number): Promise<Delivery | undefined>;
  appExists(appId: number): Promise<boolean>;
}

/** Ownership checks: the app when the account owns it. */
export interface AppOwnership {
  owned(accountId: number, appId: number): Promise<App | undefined>;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

/**
 * The delivery log and re-queueing of failed deliveries: for a developer, within the apps they own;
 * for the operator (CLI), any app.
 */
export class DeliveryService {
  constructor(
    private readonly log: DeliveryLog,
    private readonly apps: AppOwnership,
  ) {}

  async list(accountId: number, appId: number, query: DeliveryQuery = {}): Promise<Delivery[]> {
    const page = this.page(query);
    await this.owned(accountId, appId);
    return this.log.list(appId, page);
  }

  async retry(accountId: number, appId: number, id: number): Promise<Delivery> {
    await this.owned(accountId, appId);
    const delivery = await this.log.byId(id);
    if (!delivery || delivery.appId !== appId) throw notFound(`delivery ${id} not found`);
    return this.requeue(delivery);
  }

  /** Operator: any app's log. */
  async listForApp(appId: number, query: DeliveryQuery = {}): Promise<Delivery[]> {
    const page = this.page(query);
    if (!(await this.log.appExists(appId))) throw notFound(`app ${appId} not found`);
    return this.log.list(appId, page);
  }

  /** Operator: re-queue any failed delivery. */
  async retryAny(id: number): Promise<Delivery> {
    const delivery = await this.log.byId(id);
    if (!delivery) throw notFound(`delivery ${id} not found`);
    return this.requeue(delivery);
  }

  private async owned(accountId: number, appId: number): Promise<void> {
    if (!(await this.apps.owned(accountId, appId))) throw notFound(`app ${appId} not found`);
  }

  private async requeue(delivery: Delivery): Promise<Delivery> {
    if (delivery.status !== 'failed') throw conflict(`delivery ${delivery.id} is ${delivery.status}; only failed deliveries can be retried`);
    const requeued = await this.log.requeue(delivery.id);
    // Another request re-queued it in between.
    if (!requeued) throw conflict(`delivery ${delivery.id} is no longer failed; only failed deliveries can be retried`);
    return requeued;
  }

  private page(query: DeliveryQuery): DeliveryPage {
    const limit = query.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    if (query.before !== undefined && !Number.isInteger(query.before)) throw badRequest('before must be a delivery id');
    const status = query.status;
    if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
      throw badRequest(`status must be one of ${DELIVERY_STATUSES.join(', ')}`);
    }
    return { limit, ...(query.before !== undefined && { before: query.before }), ...(status !== undefined && { status: status as DeliveryStatus }) };
  }
}
