import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Storage } from './storage/storage.js';
import type { Notifier } from './storage/notifications.js';
import type { AccountsRepository } from './storage/accounts-repository.js';
import type { ModulesRepository } from './storage/modules-repository.js';
import type { DevicesRepository } from './storage/devices-repository.js';
import type { AppsRepository } from './storage/apps-repository.js';
import type { MessagesRepository } from './storage/messages-repository.js';
import type { RawMessagesRepository } from './storage/raw-messages-repository.js';
import type { MessagePages } from './storage/message-pages.js';
import type { RateLimitsRepository } from './storage/rate-limits-repository.js';
import type { Redis } from './storage/redis.js';
import type { AccountService } from './domain/accounts.js';
import type { SessionService } from './domain/sessions.js';
import type { ApiKeyService } from './domain/api-keys.js';
import type { AuditService } from './domain/audit.js';
import type { SelfService } from './domain/self-service.js';
import type { CatalogService } from './domain/catalog.js';
import type { ModuleService } from './domain/modules.js';
import type { AppService } from './domain/apps.js';
import type { LabelService } from './domain/label-service.js';
import type { ModuleListService } from './domain/module-list-service.js';
import type { OverviewService } from './domain/overview.js';
import type { DeliveryService } from './domain/deliveries.js';
import type { WebhookService } from './domain/webhooks.js';
import type { DeviceService } from './domain/devices.js';
import type { RetentionService } from './domain/retention.js';
import type { AlertService } from './domain/alerts.js';
import type { AlertEmailService } from './domain/alert-email.js';
import type { IngestService } from './ingest/ingest-service.js';
import type { PortalSimulator } from './simulator/portal-simulator.js';
import type { DeliveryWorker, WorkerOptions } from './delivery/delivery-worker.js';
import type { ExportService } from './lifecycle/export-service.js';
import type { Pruner } from './lifecycle/account-pruner.js';
import type { Mailer } from './integrations/email/mailer.js';
import type { AlertMailer } from './integrations/email/alert-mailer.js';
import type { AlertMailerSettings } from './integrations/email/alert-mailer-settings.js';
import type { MqttBridge } from './integrations/mqtt/mqtt-bridge.js';
import type { LiveStreams } from './integrations/events/live-streams.js';
import type { Metrics } from './monitoring/metrics.js';
import type { Watchdog } from './monitoring/watchdog.js';

/**
 * The composition root: storage → repositories → services, built once. The HTTP server, the CLI
 * and the delivery worker all receive this same object.
 */
export interface Context {
  config: Config;
  log: Logger;
  storage: Storage;
  /**
   * After-commit notifications on the channels `deliveries`, `messages` and `alerts`: `publish(trx,
   * channel, payload)` sends once `trx` commits, `subscribe(channel, handler)` receives them — from
   * every process on PostgreSQL. See `storage/notifications.ts` for the contract.
   */
  notifier: Notifier;
  /** Signs device tokens and derives API keys: SNSR_SECRET, or a random one kept in the database. */
  secret: string;
  repositories: {
    accounts: AccountsRepository;
    modules: ModulesRepository;
    devices: DevicesRepository;
    apps: AppsRepository;
    messages: MessagesRepository;
    /** The device API's history pages (its hottest reads). */
    messagePages: MessagePages;
    rawMessages: RawMessagesRepository;
  };
  accounts: AccountService;
  sessions: SessionService;
  apiKeys: ApiKeyService;
  audit: AuditService;
  /** Sign-up, activation, password reset and account deletion. */
  selfService: SelfService;
  /** SMTP, when `SNSR_SMTP_URL` is set. */
  mailer: Mailer | undefined;
  catalog: CatalogService;
  modules: ModuleService;
  apps: AppService;
  /** Owners' names, tags and notes on modules and child devices. */
  labels: LabelService;
  /** The searchable, sortable, paged module list and its bulk actions. */
  moduleList: ModuleListService;
  /** The developer's landing page: fleet counts, alerts, failing callbacks, uplinks per hour. */
  overview: OverviewService;
  /** The uplink pipeline: Sigfox callbacks in, raw messages, messages, device state and outbox rows out. */
  ingest: IngestService;
  /** The original portal's simulator: simulation objects in, simulated uplinks through ingest. */
  portalSimulator: PortalSimulator;
  deliveries: DeliveryService;
  /** Webhook health per app, test callbacks, bulk retry of failed deliveries. */
  webhooks: WebhookService;
  /** Starts a callback delivery worker on this context; `close()` stops it first. */
  startWorker(options?: WorkerOptions & { timeoutMs?: number }): DeliveryWorker;
  devices: DeviceService;
  /** Decoded messages as CSV or NDJSON downloads, streamed. */
  exports: ExportService;
  /** Owners' retention choices per module and per app, over the operator's defaults. */
  retention: RetentionService;
  /** Alerts of watched devices: listing and acknowledging. */
  alerts: AlertService;
  /** Each account's choice to get its alerts by email. */
  alertEmail: AlertEmailService;
  /** Redis, when `SNSR_REDIS_URL` is set: rate-limit counters every process shares. */
  redis: Redis | undefined;
  /** Rate-limit counters in the database, for processes sharing PostgreSQL without Redis. */
  rateLimits: RateLimitsRepository;
  /** This process's Prometheus metrics (`GET /metrics`). */
  metrics: Metrics;
  /** Live event streams (`GET /iot/developers/stream`): this process's hub of the notifier's events. */
  streams: LiveStreams;
  /** Starts the MQTT integration when SNSR_MQTT_URL is set (it publishes from the process holding its lease); `close()` stops it. */
  startMqtt(options?: { settleMs?: number; pollMs?: number }): MqttBridge | undefined;
  /**
   * Starts the alert mailer when SMTP is configured (it sends from the process holding its lease);
   * `close()` stops it. Options override the defaults (tests).
   */
  startAlertMailer(options?: Partial<AlertMailerSettings> & { owner?: string }): AlertMailer | undefined;
  /** Starts the lost-contact watchdog (it runs on whichever process holds its lease); `close()` stops it. */
  startWatchdog(options?: { now?: () => number; owner?: string }): Watchdog;
  /**
   * Starts the background pruning of audit entries, ended sessions and expired links, and of
   * messages, raw messages and ended alerts past their retention; `close()` stops it.
   */
  startMaintenance(): Pruner;
  close(): Promise<void>;
}
