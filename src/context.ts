import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openStorage } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
import type { Notifier } from './storage/notifications.js';
import { AccountsRepository } from './storage/accounts-repository.js';
import { ModulesRepository } from './storage/modules-repository.js';
import { DevicesRepository } from './storage/devices-repository.js';
import { AppsRepository } from './storage/apps-repository.js';
import { SettingsRepository } from './storage/settings-repository.js';
import { MessagesRepository } from './storage/messages-repository.js';
import { RawMessagesRepository } from './storage/raw-messages-repository.js';
import { AccountService } from './domain/accounts.js';
import { CatalogService } from './domain/catalog.js';
import { ModuleService } from './domain/modules.js';
import { AppService } from './domain/apps.js';
import { LabelService } from './domain/label-service.js';
import { ModuleListService } from './domain/module-list-service.js';
import { LabelsRepository } from './storage/labels-repository.js';
import { ModuleListRepository } from './storage/module-list-repository.js';
import { OverviewService } from './domain/overview.js';
import { OverviewRepository } from './storage/overview-repository.js';
import { IngestService } from './ingest/ingest-service.js';
import { PortalSimulator } from './simulator/portal-simulator.js';
import { legacyDate } from './wire/legacy-date.js';
import { DeliveryService } from './domain/deliveries.js';
import { DeliveriesRepository } from './delivery/deliveries-repository.js';
import { WebhookService } from './domain/webhooks.js';
import { WebhookLogRepository } from './delivery/webhook-log-repository.js';
import { TestCallbackSender } from './delivery/test-callback.js';
import { createDeliveryWorker } from './delivery/create-delivery-worker.js';
import type { DeliveryWorker, WorkerOptions } from './delivery/delivery-worker.js';
import { VERSION } from './version.js';
import { DeviceService } from './domain/devices.js';
import { SessionsRepository } from './storage/sessions-repository.js';
import { ApiKeysRepository } from './storage/api-keys-repository.js';
import { AuditRepository } from './storage/audit-repository.js';
import { SignupsRepository } from './storage/signups-repository.js';
import { PasswordResetsRepository } from './storage/password-resets-repository.js';
import { SessionService } from './domain/sessions.js';
import { ApiKeyService } from './domain/api-keys.js';
import { AuditService } from './domain/audit.js';
import { SelfService } from './domain/self-service.js';
import { createMailer } from './integrations/email/mailer.js';
import type { Mailer } from './integrations/email/mailer.js';
import { accountEmails } from './integrations/email/account-emails.js';
import { AlertMailer } from './integrations/email/alert-mailer.js';
import type { AlertMailerSettings } from './integrations/email/alert-mailer.js';
import { AlertEmailService } from './domain/alert-email.js';
import { AlertEmailsRepository } from './storage/alert-emails-repository.js';
import { ExportService } from './lifecycle/export-service.js';
import { ExportRepository } from './storage/export-repository.js';
import { startAccountPruner } from './lifecycle/account-pruner.js';
import type { Pruner } from './lifecycle/account-pruner.js';
import { startRetentionPruner } from './lifecycle/retention-pruner.js';
import { timePartitions } from './storage/postgres/partition-drops.js';
import { RetentionService } from './domain/retention.js';
import { RetentionRepository } from './storage/retention-repository.js';
import { AlertService } from './domain/alerts.js';
import type { Alert } from './domain/alerts.js';
import { Metrics } from './monitoring/metrics.js';
import { Watchdog } from './monitoring/watchdog.js';
import { Lease } from './monitoring/lease.js';
import { MqttBridge } from './integrations/mqtt/mqtt-bridge.js';
import { MqttFeedRepository, setBidirForApp } from './storage/mqtt-feed-repository.js';
import { EventHub } from './integrations/events/event-hub.js';
import { LiveStreams } from './integrations/events/live-streams.js';
import { StreamEventsRepository } from './storage/stream-events-repository.js';
import { queueStats } from './monitoring/queue-stats.js';
import { uplinkOutcome } from './monitoring/ingest-outcome.js';
import { AlertsRepository } from './storage/alerts-repository.js';
import { RateLimitsRepository } from './storage/rate-limits-repository.js';
import { connectRedis } from './storage/redis.js';
import type { Redis } from './storage/redis.js';

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

export interface ContextOptions {
  migrate?: boolean;
  log?: Logger;
  /** SQLite file: checkpoint the WAL from a worker thread (`OpenOptions`); servers set it, commands need not. */
  backgroundCheckpoints?: boolean;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<Context> {
  const log =
    options.log ??
    pino({
      level: config.logLevel,
      ...(config.logFormat === 'pretty' && { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }),
    });
  const storage = await openStorage(config.databaseUrl, {
    migrate: options.migrate ?? true,
    backgroundCheckpoints: options.backgroundCheckpoints ?? false,
    database: config.database,
    onNotifierError: (error) => log.warn({ err: error }, 'notification listener lost its database connection; reconnecting'),
    onCheckpointerError: (error) => log.error({ err: error }, 'SQLite checkpoint worker failed; the writer checkpoints the WAL itself from now on'),
  });
  const secret =
    config.secret ?? (await new SettingsRepository(storage.db).getOrCreate('secret', () => randomBytes(32).toString('base64url')));
  const repositories = {
    accounts: new AccountsRepository(storage.db),
    modules: new ModulesRepository(storage.db),
    devices: new DevicesRepository(storage.db),
    apps: new AppsRepository(storage.db),
    messages: new MessagesRepository(storage.db, storage.capabilities),
    rawMessages: new RawMessagesRepository(storage.db),
  };
  const redis = config.limits.redisUrl ? connectRedis(config.limits.redisUrl, log) : undefined;
  const rateLimits = new RateLimitsRepository(storage.db);
  const timers: NodeJS.Timeout[] = [];
  const workers: DeliveryWorker[] = [];
  const pruners: Pruner[] = [];
  const watchdogs: Watchdog[] = [];
  const bridges: MqttBridge[] = [];
  const alertMailers: AlertMailer[] = [];
  const streamEvents = new StreamEventsRepository(storage.db);
  const hub = new EventHub(streamEvents, storage.notifier, log);
  const metrics = new Metrics({
    queue: queueStats(storage.db),
    poolUse: () => storage.poolUse(),
    deliveries: () => {
      const total = { delivered: 0, retrying: 0, failed: 0 };
      for (const { stats } of workers) for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += stats[key];
      return total;
    },
  });
  const modules = new ModuleService(repositories.modules, repositories.devices);
  const apps = new AppService(repositories.apps, modules, config.delivery.allowPrivateTargets);
  const { accounts: settings } = config;
  const sessions = new SessionService(new SessionsRepository(storage.db), {
    idleMs: settings.sessionIdleMinutes * 60_000,
    maxMs: settings.sessionMaxHours * 3_600_000,
  });
  const apiKeys = new ApiKeyService(new ApiKeysRepository(storage.db));
  const audit = new AuditService(new AuditRepository(storage.db));
  const signups = new SignupsRepository(storage.db);
  const resets = new PasswordResetsRepository(storage.db);
  const accounts = new AccountService(repositories.accounts, secret, apiKeys, sessions, signups);
  const mailer = config.email.smtpUrl ? await createMailer(config.email.smtpUrl, config.email.from, log) : undefined;
  const selfService = new SelfService({ accounts: repositories.accounts, signups, resets }, accounts, sessions, modules, mailer && accountEmails(mailer), {
    signup: settings.signup,
    publicUrl: config.publicUrl,
    signupExpiryMs: settings.signupExpiryHours * 3_600_000,
    resetExpiryMs: settings.resetExpiryMinutes * 60_000,
  });
  const streams = new LiveStreams(hub, streamEvents, config.streamHeartbeatMs, metrics.openStreams);
  const ingest = new IngestService(storage, log, {
    dateText: (ms) => legacyDate(new Date(ms), config.timezone),
    observe: (outcome, seconds) => {
      metrics.uplink(uplinkOutcome(outcome), seconds);
      if ('result' in outcome) for (const alert of outcome.result.alerts?.raised ?? []) metrics.alerts.inc({ kind: alert.kind });
    },
  });
  const devices = new DeviceService(secret, repositories, modules);
  const deliveryLog = new DeliveriesRepository(storage.db);
  return {
    config,
    log,
    storage,
    notifier: storage.notifier,
    secret,
    repositories,
    accounts,
    sessions,
    apiKeys,
    audit,
    selfService,
    mailer,
    catalog: new CatalogService(repositories.modules),
    modules,
    apps,
    labels: new LabelService(new LabelsRepository(storage.db), modules),
    moduleList: new ModuleListService({ list: new ModuleListRepository(storage.db), apps }),
    overview: new OverviewService(new OverviewRepository(storage.db), new AlertsRepository(storage.db)),
    ingest,
    portalSimulator: new PortalSimulator(modules, ingest, repositories.messages),
    devices,
    retention: new RetentionService(new RetentionRepository(storage.db), modules, apps, config.retention),
    exports: new ExportService(new ExportRepository(storage.db), { devices, modules, apps, moduleBySerial: (serial) => repositories.modules.bySerial(serial) }),
    alerts: new AlertService(new AlertsRepository(storage.db), {
      moduleBySerial: (serial) => repositories.modules.bySerial(serial),
      deviceBySerial: (serial) => repositories.devices.bySerial(serial),
      appOwned: async (accountId, appId) => (await repositories.apps.owned(accountId, appId)) !== undefined,
    }),
    alertEmail: new AlertEmailService(new AlertEmailsRepository(storage.db), mailer !== undefined),
    metrics,
    streams,
    redis,
    rateLimits,
    deliveries: new DeliveryService(deliveryLog, repositories.apps),
    webhooks: new WebhookService(
      new WebhookLogRepository(storage.db),
      { owned: (accountId, appId) => repositories.apps.owned(accountId, appId), exists: (appId) => deliveryLog.appExists(appId) },
      new TestCallbackSender({ timeoutMs: config.delivery.timeoutMs, allowPrivate: config.delivery.allowPrivateTargets, userAgent: `snsr/${VERSION}` }),
    ),
    startWorker: (workerOptions = {}) => {
      const worker = createDeliveryWorker(storage, config, log, { ...workerOptions, userAgent: `snsr/${VERSION}`, redis });
      workers.push(worker);
      return worker.start();
    },
    startMqtt: (mqttOptions = {}) => {
      if (config.mqttUrl === undefined) return undefined;
      const lease = new Lease(storage.db, storage.capabilities, 'mqtt', `${process.pid}:${randomBytes(4).toString('hex')}`, 15_000);
      const bridge = new MqttBridge(
        new MqttFeedRepository(storage.db),
        lease,
        { url: config.mqttUrl, settleMs: mqttOptions.settleMs ?? 1000, pollMs: mqttOptions.pollMs ?? 2000 },
        storage.notifier,
        (appId, serial, value) => setBidirForApp(storage.db, appId, serial, value),
        log,
        (outcome) => metrics.mqtt.inc({ outcome }),
      );
      bridges.push(bridge);
      return bridge.start();
    },
    startAlertMailer: ({ owner, ...overrides } = {}) => {
      if (mailer === undefined || config.publicUrl === undefined) return undefined;
      // A term of three send timeouts: renewed before each send, a slow SMTP never outlives it.
      const lease = new Lease(storage.db, storage.capabilities, 'alert-mailer', owner ?? `${process.pid}:${randomBytes(4).toString('hex')}`, 180_000);
      const settings: AlertMailerSettings = {
        publicUrl: config.publicUrl,
        intervalMs: config.email.alertIntervalMs,
        settleMs: 2000,
        pollMs: 30_000,
        backoffMs: 5000,
        maxBackoffMs: 900_000,
        sendTimeoutMs: 60_000,
        ...overrides,
      };
      const alertMailer = new AlertMailer(new AlertEmailsRepository(storage.db), mailer, lease, storage.notifier, settings, log, (outcome) => metrics.alertEmails.inc({ outcome }));
      alertMailers.push(alertMailer);
      return alertMailer.start();
    },
    startWatchdog: (watchdogOptions = {}) => {
      const onRaised = (alerts: Alert[]) => alerts.forEach((alert) => metrics.alerts.inc({ kind: alert.kind }));
      const watchdog = new Watchdog(storage.db, storage.capabilities, config.watchdog, log, onRaised, watchdogOptions.now, watchdogOptions.owner);
      watchdogs.push(watchdog);
      return watchdog.start();
    },
    startMaintenance: () => {
      const pruner = startAccountPruner({ audit, sessions, signups, resets }, log, { auditRetentionMs: settings.auditRetentionDays * 86_400_000 });
      pruners.push(pruner);
      const partitions = storage.capabilities.dialect === 'postgres' ? timePartitions(storage.db) : undefined;
      // Months ahead at once, not only at the first pruning round: a start on the last day of a month counts.
      void partitions?.ensureAhead(Date.now()).catch((error: unknown) => log.warn({ err: error }, 'creating time partitions ahead failed'));
      pruners.push(startRetentionPruner(new RetentionRepository(storage.db), config.retention, log, { partitions, dialect: storage.capabilities.dialect }).start());
      // Ended rate-limit windows are only read as "no window": forgotten each minute.
      const prune = () => void rateLimits.prune().catch((error: unknown) => log.warn({ err: error }, 'pruning rate-limit counters failed'));
      timers.push(setInterval(prune, 60_000).unref());
      return pruner;
    },
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([...workers.map((worker) => worker.stop()), ...pruners.map((pruner) => pruner.stop()), ...watchdogs.map((watchdog) => watchdog.stop()), ...bridges.map((bridge) => bridge.stop()), ...alertMailers.map((alertMailer) => alertMailer.stop())]);
      hub.close();
      redis?.disconnect();
      await mailer?.close();
      await storage.close();
    },
  };
}
