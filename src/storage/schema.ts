import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

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

/** A rate-limit counter: hits of `key` in the fixed window that ends at `reset_at` (epoch ms). */
export interface RateLimitsTable {
  key: string;
  count: number;
  reset_at: number;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface AccountsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  /** Random per-account value the API key is derived from; replacing it regenerates the key. */
  api_key_salt: string;
  git_alias: string | null;
  created_at: number;
  firstname: string | null;
  lastname: string | null;
}

/** The operator's catalog of manufactured modules, and which account registered each. */
export interface ModulesTable {
  serial: string;
  key: string;
  pac: string;
  protocol: string;
  account_id: number | null;
  registered_at: number | null;
  imported_at: number;
  /** Last 4-bit transmission counter heard from the module, for counting lost uplinks. */
  last_cpt: number | null;
  /** Expected period (s) of the module's watched devices when their keep-alives do not say. */
  watch_period_s: number | null;
  /** Sigfox sequence number and network time (epoch s) of the newest uplink by network time. */
  last_seq: number | null;
  last_time_s: number | null;
  /** The last `when_ms` given to one of the module's messages: the next one is later, strictly. */
  last_when_ms: number | null;
  /** Counts registrations and unregistrations: device tokens carry it, so a change of hands ends them. */
  registration: Generated<number>;
  /** The device key the owner set in place of the printed `key` (which then no longer works, nor the PAC). */
  device_key: string | null;
}

export interface DevicesTable {
  id: Generated<number>;
  module_serial: string;
  idx: number;
  serial: string;
  uid: string | null;
  category: string | null;
  active: Generated<number>;
  watched: Generated<number>;
  alerts: Generated<number>;
  alerts_ack: Generated<number>;
  losts: Generated<number>;
  msgs: Generated<number>;
  firstseen: number | null;
  lastseen: number | null;
  battery: Generated<string>;
  level: Generated<string>;
  network: Generated<string>;
  tamper: Generated<string>;
  temp: Generated<string>;
  status: Generated<string>;
  type: Generated<string>;
  bidirval: string | null;
  /** Keep-alive interval the device announced, seconds (0: monitoring off); the watchdog's period. */
  period_s: number | null;
  /** The owner's name and notes for the device; null when none. */
  name: string | null;
  notes: string | null;
  /** The owner's tags as " tag1 tag2 " (spaces around each), '' when none: see 0010_labels.sql. */
  tags: Generated<string>;
  /** 1 while a lost-contact alert of the device is open (see 0020_lost_contact_flag.sql). */
  lost_contact: Generated<number>;
}

export interface AppsTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string;
  callback_url: string | null;
  key: string;
  secret: string;
  created_at: number;
  reftime: number | null;
  /** Expected period (s) of attached modules' watched devices when neither frames nor module say. */
  watch_period_s: number | null;
}

export interface AppModulesTable {
  app_id: number;
  module_serial: string;
  attached_at: number;
}

export interface RawMessagesTable {
  id: Generated<number>;
  module_serial: string;
  seq_number: number | null;
  time_s: number;
  data: string;
  snr: number | null;
  avg_snr: number | null;
  lat: number | null;
  lng: number | null;
  received_at: number;
}

export interface RinfosTable {
  raw_id: number;
  tap: string;
  rssi: number | null;
  snr: number | null;
}

export interface MessagesTable {
  id: Generated<number>;
  module_serial: string;
  device_id: number;
  raw_id: number | null;
  /** snsr's reception time, epoch ms, strictly increasing per module: what pollers page on. */
  when_ms: number;
  /** The network's time of the uplink, epoch s (also on the raw message). */
  time_s: number;
  type: string;
  station: string;
  lvl: number | null;
  frame: string;
  /** `srv_frm_event` …, with `code`, `entry_id` and `custom` it rebuilds the decode structure. */
  frame_type: string;
  code: string;
  entry_id: number;
  stamp: number;
  cpt: number;
  retry: number;
  custom: string;
  contrib: string;
  ctxt: string;
  /**
   * The message's wire form as JSON text (`messageBody`), written at ingestion so history sends it
   * as it is; null for rows stored before it existed, which reads build from the columns above.
   */
  body: string | null;
}

export interface DeliveriesTable {
  id: Generated<number>;
  uuid: string;
  app_id: number;
  /** the message delivered; null when the delivery is of an alert (exactly one of the two is set) */
  message_id: number | null;
  alert_id: number | null;
  status: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  lease_until: number | null;
  lease_owner: string | null;
  last_status_code: number | null;
  last_error: string | null;
  /** how long the last request took, ms; null before the first */
  last_latency_ms: number | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** A dashboard session; the cookie carries the id, the table only its SHA-256. */
export interface SessionsTable {
  id_hash: string;
  account_id: number;
  created_at: number;
  /** Moved forward at most once a minute: the idle expiry's clock, without a write per request. */
  last_used_at: number;
  /** The absolute expiry. */
  expires_at: number;
  address: string | null;
  user_agent: string | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** The secret's first characters, shown to tell keys apart. */
  prefix: string;
  /** SHA-256 of the secret (hex): the secret is random and long, so a slow hash adds nothing. */
  secret_hash: string;
  /** `read` or `full`. */
  scope: string;
  created_at: number;
  expires_at: number | null;
  /** Moved forward at most once a minute. */
  last_used_at: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: number;
  at: number;
  action: string;
  /** `session`, `password`, `token`, `key`, `link` (an emailed link) or `operator` (the CLI). */
  credential: string | null;
  key_name: string | null;
  address: string | null;
  /** JSON object, or NULL. */
  detail: string | null;
}

export interface SignupsTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  firstname: string | null;
  lastname: string | null;
  token_hash: string;
  created_at: number;
  expires_at: number;
  activated_at: number | null;
}

export interface PasswordResetsTable {
  token_hash: string;
  account_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** An alarm raised on a device; open while `ended_at` is null. */
export interface AlertsTable {
  id: Generated<number>;
  account_id: number;
  module_serial: string;
  device_id: number;
  kind: string;
  message: string;
  raised_at: number;
  message_id: number | null;
  ended_at: number | null;
  end_message: string | null;
  acked_at: number | null;
  /** 1 while the alert waits to be emailed to its account (set when raised for an account that asks) */
  email_pending: Generated<number>;
}

export interface AlertSettingsTable {
  account_id: number;
  /** 1: the account's alerts are emailed to it. */
  email: number;
}

/** A named lease: the job runs on the process named by `owner` until `until_ms` (database clock). */
/** A per-app sending slot a worker holds until `until_ms` (database clock); taken over once past it. */
export interface DeliverySlotsTable {
  app_id: number;
  slot: number;
  holder: string;
  until_ms: number;
}

export interface LeasesTable {
  name: string;
  owner: string;
  until_ms: number;
}

/** An owner's override of how long a module's data is kept; NULL: the operator's default. */
export interface ModuleRetentionTable {
  module_serial: string;
  messages_days: number | null;
  raw_days: number | null;
}

/** An app owner's retention choice for every module attached to the app (NULL: no choice). */
export interface AppRetentionTable {
  app_id: number;
  messages_days: number | null;
  raw_days: number | null;
}

export type AccountRow = Selectable<AccountsTable>;
export type ModuleRow = Selectable<ModulesTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type DeviceUpdate = Updateable<DevicesTable>;
export type AppRow = Selectable<AppsTable>;
export type RawMessageRow = Selectable<RawMessagesTable>;
export type RinfoRow = Selectable<RinfosTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
export type DeliveryRow = Selectable<DeliveriesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type SignupRow = Selectable<SignupsTable>;
export type AlertRow = Selectable<AlertsTable>;
