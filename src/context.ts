import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openStorage } from './storage/storage.js';
import { AccountsRepository } from './storage/accounts-repository.js';
import { ModulesRepository } from './storage/modules-repository.js';
import { DevicesRepository } from './storage/devices-repository.js';
import { AppsRepository } from './storage/apps-repository.js';
import { SettingsRepository } from './storage/settings-repository.js';
import { MessagesRepository } from './storage/messages-repository.js';
import { RawMessagesRepository } from './storage/raw-messages-repository.js';
import { MessagePages } from './storage/message-pages.js';
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
import { accountEmails } from './integrations/email/account-emails.js';
import { AlertEmailService } from './domain/alert-email.js';
import { AlertEmailsRepository } from './storage/alert-emails-repository.js';
import { ExportService } from './lifecycle/export-service.js';
import { ExportRepository } from './storage/export-repository.js';
import { RetentionService } from './domain/retention.js';
import { RetentionRepository } from './storage/retention-repository.js';
import { AlertService } from './domain/alerts.js';
import { Metrics } from './monitoring/metrics.js';
import { EventHub } from './integrations/events/event-hub.js';
import { LiveStreams } from './integrations/events/live-streams.js';
import { StreamEventsRepository } from './storage/stream-events-repository.js';
import { queueStats } from './monitoring/queue-stats.js';
import { uplinkOutcome } from './monitoring/ingest-outcome.js';
import { AlertsRepository } from './storage/alerts-repository.js';
import { RateLimitsRepository } from './storage/rate-limits-repository.js';
import { connectRedis } from './storage/redis.js';
import { backgroundJobs } from './background-jobs.js';
import type { Context } from './context-types.js';

// Importers (src, test, bench, scripts) take the Context type from here, beside createContext.
export type { Context } from './context-types.js';

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
    modules: new ModulesRepository(storage.db, storage.capabilities),
    devices: new DevicesRepository(storage.db),
    apps: new AppsRepository(storage.db),
    messages: new MessagesRepository(storage.db),
    messagePages: new MessagePages(storage.db, storage.capabilities),
    rawMessages: new RawMessagesRepository(storage.db),
  };
  const redis = config.limits.redisUrl ? await connectRedis(config.limits.redisUrl, log) : undefined;
  const rateLimits = new RateLimitsRepository(storage.db);
  const streamEvents = new StreamEventsRepository(storage.db);
  const hub = new EventHub(streamEvents, storage.notifier, log);
  const metrics = new Metrics({
    queue: queueStats(storage.db),
    poolUse: () => storage.poolUse(),
    walBytes: () => storage.walBytes(),
    historyBatches: () => repositories.messagePages.batched(),
    // Read only when /metrics is scraped: by then `jobs`, built last from these metrics, exists.
    deliveries: () => jobs.deliveries(),
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
    commitDelayMs: config.ingestCommitDelayMs,
    observe: (outcome, seconds) => {
      metrics.uplink(uplinkOutcome(outcome), seconds);
      if ('result' in outcome) for (const alert of outcome.result.alerts?.raised ?? []) metrics.alerts.inc({ kind: alert.kind });
    },
  });
  const devices = new DeviceService(secret, repositories, modules);
  const deliveryLog = new DeliveriesRepository(storage.db);
  const jobs = backgroundJobs({ config, log, storage, redis, mailer, metrics, rateLimits, audit, sessions, signups, resets });
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
    startWorker: jobs.startWorker,
    startMqtt: jobs.startMqtt,
    startAlertMailer: jobs.startAlertMailer,
    startWatchdog: jobs.startWatchdog,
    startMaintenance: jobs.startMaintenance,
    close: async () => {
      await jobs.stop();
      hub.close();
      redis?.disconnect();
      await mailer?.close();
      await storage.close();
    },
  };
}
