import type { AccountsTable, ApiKeysTable, AuditLogTable, PasswordResetsTable, RateLimitsTable, SessionsTable, SettingsTable, SignupsTable } from './account-tables.js';
import type { AlertSettingsTable, AlertsTable, DeliveriesTable, DeliverySlotsTable, LeasesTable } from './delivery-tables.js';
import type { AppModulesTable, AppRetentionTable, AppsTable, DevicesTable, MessagesTable, ModuleRetentionTable, ModulesTable, RawMessagesTable, RinfosTable } from './module-tables.js';

// Repositories import every table and row type from here, whichever file of the three holds it.
export type * from './account-tables.js';
export type * from './delivery-tables.js';
export type * from './module-tables.js';

/**
 * Table types shared by both dialects. Times are epoch milliseconds (`*_at`, `when_ms`) or seconds
 * (`time_s`, Sigfox's unit) in BIGINT columns; booleans are 0/1 integers so one query serves both
 * SQLite and PostgreSQL; JSON documents are text.
 */
export interface Database {
  settings: SettingsTable;
  accounts: AccountsTable;
  modules: ModulesTable;
  devices: DevicesTable;
  apps: AppsTable;
  app_modules: AppModulesTable;
  raw_messages: RawMessagesTable;
  rinfos: RinfosTable;
  messages: MessagesTable;
  deliveries: DeliveriesTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  signups: SignupsTable;
  password_resets: PasswordResetsTable;
  alerts: AlertsTable;
  module_retention: ModuleRetentionTable;
  app_retention: AppRetentionTable;
  alert_settings: AlertSettingsTable;
  leases: LeasesTable;
  rate_limits: RateLimitsTable;
  delivery_slots: DeliverySlotsTable;
}
