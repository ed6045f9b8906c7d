import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openStorage } from './storage/storage.js';
import type { Storage } from './storage/storage.js';
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
import { IngestService } from './ingest/ingest-service.js';
import { legacyDate } from './wire/legacy-date.js';
import { DeliveryService } from './domain/deliveries.js';
import { DeliveriesRepository } from './delivery/deliveries-repository.js';
import { createDeliveryWorker } from './delivery/create-delivery-worker.js';
import type { DeliveryWorker, WorkerOptions } from './delivery/delivery-worker.js';
import { VERSION } from './version.js';
import { DeviceService } from './domain/devices.js';

/**
 * The composition root: storage → repositories → services, built once. The HTTP server, the CLI
 * and the delivery worker all receive this same object.
 */
export interface Context {
  config: Config;
  log: Logger;
  storage: Storage;
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
  catalog: CatalogService;
  modules: ModuleService;
  apps: AppService;
  /** The uplink pipeline: Sigfox callbacks in, raw messages, messages, device state and outbox rows out. */
  ingest: IngestService;
  deliveries: DeliveryService;
  /** Starts a callback delivery worker on this context; `close()` stops it first. */
  startWorker(options?: WorkerOptions & { timeoutMs?: number }): DeliveryWorker;
  devices: DeviceService;
  close(): Promise<void>;
}

export interface ContextOptions {
  migrate?: boolean;
  log?: Logger;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<Context> {
  const log =
    options.log ??
    pino({
      level: config.logLevel,
      ...(config.logFormat === 'pretty' && { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } }),
    });
  const storage = await openStorage(config.databaseUrl, { migrate: options.migrate ?? true });
  const secret =
    config.secret ?? (await new SettingsRepository(storage.db).getOrCreate('secret', () => randomBytes(32).toString('base64url')));
  const repositories = {
    accounts: new AccountsRepository(storage.db),
    modules: new ModulesRepository(storage.db),
    devices: new DevicesRepository(storage.db),
    apps: new AppsRepository(storage.db),
    messages: new MessagesRepository(storage.db),
    rawMessages: new RawMessagesRepository(storage.db),
  };
  const workers: DeliveryWorker[] = [];
  const modules = new ModuleService(repositories.modules, repositories.devices);
  return {
    config,
    log,
    storage,
    secret,
    repositories,
    accounts: new AccountService(repositories.accounts, secret),
    catalog: new CatalogService(repositories.modules),
    modules,
    apps: new AppService(repositories.apps, modules, config.delivery.allowPrivateTargets),
    ingest: new IngestService(storage, log, { dateText: (ms) => legacyDate(new Date(ms), config.timezone) }),
    devices: new DeviceService(secret, repositories, modules),
    deliveries: new DeliveryService(new DeliveriesRepository(storage.db), repositories.apps),
    startWorker: (workerOptions = {}) => {
      const worker = createDeliveryWorker(storage, config, log, { ...workerOptions, userAgent: `snsr/${VERSION}` });
      workers.push(worker);
      return worker.start();
    },
    close: async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await storage.close();
    },
  };
}
