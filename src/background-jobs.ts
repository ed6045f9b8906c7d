import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Context } from './context-types.js';
import type { Storage } from './storage/storage.js';
import type { SignupsRepository } from './storage/signups-repository.js';
import type { PasswordResetsRepository } from './storage/password-resets-repository.js';
import type { RateLimitsRepository } from './storage/rate-limits-repository.js';
import type { Redis } from './storage/redis.js';
import { AlertEmailsRepository } from './storage/alert-emails-repository.js';
import { RetentionRepository } from './storage/retention-repository.js';
import { MqttFeedRepository, setBidirForApp } from './storage/mqtt-feed-repository.js';
import { timePartitions } from './storage/postgres/partition-drops.js';
import type { AuditService } from './domain/audit.js';
import type { SessionService } from './domain/sessions.js';
import type { Alert } from './domain/alerts.js';
import { createDeliveryWorker } from './delivery/create-delivery-worker.js';
import type { DeliveryWorker } from './delivery/delivery-worker.js';
import { startAccountPruner } from './lifecycle/account-pruner.js';
import type { Pruner } from './lifecycle/account-pruner.js';
import { startRetentionPruner } from './lifecycle/retention-pruner.js';
import type { Mailer } from './integrations/email/mailer.js';
import { AlertMailer } from './integrations/email/alert-mailer.js';
import type { AlertMailerSettings } from './integrations/email/alert-mailer-settings.js';
import { MqttBridge } from './integrations/mqtt/mqtt-bridge.js';
import type { Metrics } from './monitoring/metrics.js';
import { Watchdog } from './monitoring/watchdog.js';
import { Lease } from './monitoring/lease.js';
import { VERSION } from './version.js';

/** What the background jobs are built from: the composition root's storage, services and metrics. */
export interface BackgroundParts {
  config: Config;
  log: Logger;
  storage: Storage;
  redis: Redis | undefined;
  mailer: Mailer | undefined;
  metrics: Metrics;
  rateLimits: RateLimitsRepository;
  /** What the account pruner clears out. */
  audit: AuditService;
  sessions: SessionService;
  signups: SignupsRepository;
  resets: PasswordResetsRepository;
}

/**
 * The context's starters of background work, and what it needs back from them: the delivery
 * workers' send counts for the metrics, and one `stop()` for everything started.
 */
export type BackgroundJobs = Pick<Context, 'startWorker' | 'startMqtt' | 'startAlertMailer' | 'startWatchdog' | 'startMaintenance'> & {
  /** Sends by outcome of the delivery workers started here, since they started. */
  deliveries(): { delivered: number; retrying: number; failed: number };
  /** Stops every job started here, all at once. */
  stop(): Promise<void>;
};

/** Each job is started only when asked (servers, `snsr worker`, tests), and remembered to be stopped. */
export function backgroundJobs(parts: BackgroundParts): BackgroundJobs {
  const { config, log, storage, redis, mailer, metrics, rateLimits, audit, sessions, signups, resets } = parts;
  const timers: NodeJS.Timeout[] = [];
  const workers: DeliveryWorker[] = [];
  const pruners: Pruner[] = [];
  const watchdogs: Watchdog[] = [];
  const bridges: MqttBridge[] = [];
  const alertMailers: AlertMailer[] = [];
  return {
    deliveries: () => {
      const total = { delivered: 0, retrying: 0, failed: 0 };
      for (const { stats } of workers) for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += stats[key];
      return total;
    },
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
      const pruner = startAccountPruner({ audit, sessions, signups, resets }, log, { auditRetentionMs: config.accounts.auditRetentionDays * 86_400_000 });
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
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([...workers.map((worker) => worker.stop()), ...pruners.map((pruner) => pruner.stop()), ...watchdogs.map((watchdog) => watchdog.stop()), ...bridges.map((bridge) => bridge.stop()), ...alertMailers.map((alertMailer) => alertMailer.stop())]);
    },
  };
}
