import type { App } from './types.js';
import { badRequest, conflict, notFound } from './errors.js';

export const HEALTH_WINDOW_MS = 86_400_000;
/** Latencies read at most per health answer (the newest): bounded work however busy the app is. */
export const LATENCY_SAMPLES = 10_000;

export interface LastError {
  delivery: number;
  at: Date;
  statusCode: number | null;
  error: string;
}

/** What the deliveries table says about an app's callbacks since a time. */
export interface WebhookActivity {
  /** delivered, failed for good, pending after a failed attempt, pending never tried */
  counts: { delivered: number; failed: number; retrying: number; queued: number };
  /** failed deliveries of the app however old: what "retry all failed" would queue again */
  failedTotal: number;
  /** the newest requests' latencies in ms, at most the number asked for */
  latencies: number[];
  lastError: LastError | null;
}

/** How an app's callbacks went over the last day. */
export interface WebhookHealth extends WebhookActivity {
  appId: number;
  since: Date;
  /** delivered ÷ (delivered + failed), null when nothing has ended */
  successRate: number | null;
  latency: { p50: number | null; p95: number | null; samples: number };
}

/** The answer of a test callback, sent now and recorded nowhere. */
export interface TestCallbackResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** What the service needs from storage. */
export interface WebhookLog {
  activity(appId: number, since: number, maxSamples: number): Promise<WebhookActivity>;
  /** Queues the app's failed deliveries again (only `ids` among them, when given); how many. */
  requeueFailed(appId: number, ids?: number[]): Promise<number>;
}

export interface TestCallbacks {
  send(app: App & { callbackUrl: string }): Promise<TestCallbackResult>;
}

export interface AppLookup {
  owned(accountId: number, appId: number): Promise<App | undefined>;
  /** any account's (the operator's view) */
  exists(appId: number): Promise<boolean>;
}

export interface RetrySelection {
  ids?: number[];
  allFailed?: boolean;
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

/**
 * Webhook health (success rate, last error, latency over the last day), test callbacks and bulk
 * retry of failed deliveries: for a developer within the apps they own, for the operator (CLI) any app.
 */
export class WebhookService {
  constructor(
    private readonly log: WebhookLog,
    private readonly apps: AppLookup,
    private readonly tests: TestCallbacks,
  ) {}

  async health(accountId: number, appId: number, now = Date.now()): Promise<WebhookHealth> {
    await this.owned(accountId, appId);
    return this.healthOf(appId, now);
  }

  async healthAny(appId: number, now = Date.now()): Promise<WebhookHealth> {
    await this.exists(appId);
    return this.healthOf(appId, now);
  }

  async sendTest(accountId: number, appId: number): Promise<TestCallbackResult> {
    const app = await this.owned(accountId, appId);
    if (app.callbackUrl === null) throw conflict(`app ${appId} has no callbackurl: set one before sending a test message`);
    return this.tests.send({ ...app, callbackUrl: app.callbackUrl });
  }

  async retryFailed(accountId: number, appId: number, selection: RetrySelection): Promise<number> {
    const ids = this.selection(selection);
    await this.owned(accountId, appId);
    return this.log.requeueFailed(appId, ids);
  }

  async retryFailedAny(appId: number, selection: RetrySelection): Promise<number> {
    const ids = this.selection(selection);
    await this.exists(appId);
    return this.log.requeueFailed(appId, ids);
  }

  private async healthOf(appId: number, now: number): Promise<WebhookHealth> {
    const since = now - HEALTH_WINDOW_MS;
    const activity = await this.log.activity(appId, since, LATENCY_SAMPLES);
    const { delivered, failed } = activity.counts;
    const sorted = [...activity.latencies].sort((a, b) => a - b);
    return {
      appId,
      since: new Date(since),
      ...activity,
      successRate: delivered + failed === 0 ? null : delivered / (delivered + failed),
      latency: { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), samples: sorted.length },
    };
  }

  /** `undefined`: every failed delivery of the app. */
  private selection({ ids, allFailed }: RetrySelection): number[] | undefined {
    if (ids !== undefined && allFailed) throw badRequest('give either ids or all_failed, not both');
    if (allFailed) return undefined;
    if (ids === undefined || ids.length === 0) throw badRequest('ids (a list of delivery ids) or all_failed=true is required');
    if (!ids.every((id) => Number.isSafeInteger(id) && id > 0)) throw badRequest('ids must be positive integers (delivery ids)');
    return ids;
  }

  private async owned(accountId: number, appId: number): Promise<App> {
    const app = await this.apps.owned(accountId, appId);
    if (!app) throw notFound(`app ${appId} not found`);
    return app;
  }

  private async exists(appId: number): Promise<void> {
    if (!(await this.apps.exists(appId))) throw notFound(`app ${appId} not found`);
  }
}
