// Wire shapes of snsr's public HTTP API, as the dashboard reads them.

export type Protocol = 'UDM22' | 'UDM23';

export interface Account {
  email: string;
  firstname?: string;
  lastname?: string;
  gitAlias?: string;
  token: string;
  created: string;
}

export interface SessionInfo {
  email: string;
  created: number;
  expires: number;
}

export interface SessionStatus {
  signedIn: boolean;
  /** The browser sent a session cookie that no longer holds a session. */
  ended?: boolean;
  session?: SessionInfo;
  signup: 'open' | 'closed';
  passwordReset: boolean;
}

export interface SignupForm {
  email: string;
  password: string;
  repassword: string;
  firstname: string;
  lastname: string;
}

export type KeyScope = 'read' | 'full';

export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  scope: KeyScope;
  created: number;
  expires: number | null;
  last_used: number | null;
}

export interface CreatedKey extends ApiKey {
  secret: string;
  token: string;
}

export interface AuditEntry {
  id: number;
  action: string;
  at: number;
  credential: string | null;
  key?: string;
  address: string | null;
  detail?: Record<string, unknown>;
}

export interface App {
  id: number;
  key: string;
  secret: string;
  name: string;
  description: string;
  callbackurl?: string;
  created: string;
  reftime?: string;
}

export interface AppInput {
  id?: number;
  name: string;
  description: string;
  /** '' clears it. */
  callbackurl: string;
}

export interface ModuleItem {
  id: string;
  serial: string;
}

export interface Registration {
  registered: string[];
  not_found: string[];
  already_registered: string[];
  invalid_key: string[];
}

export type OnOff = 'ON' | 'OFF' | 'UNKNOWN';

export interface Device {
  id: string;
  serial: string;
  index: number;
  uid?: string;
  category?: string;
  active: boolean;
  watched: boolean;
  alerts: number;
  alerts_ack: number;
  losts: number;
  msgs: number;
  firstseen?: string;
  lastseen?: string;
  battery: OnOff;
  level: OnOff;
  network: OnOff;
  tamper: OnOff;
  temp: 'LOW' | 'OK' | 'HIGH' | 'UNKNOWN';
  status: string;
  type: string;
  bidirval?: string;
}

export interface ModuleDevice extends Device {
  protocol: Protocol;
}

export interface Message {
  when: number;
  lvl: string;
  station: string;
  type: string;
  device: string;
  extra: { message: string } & Record<string, unknown>;
  contrib: Record<string, unknown>;
  ctxt: Record<string, unknown>;
  received: number;
  payload: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An app's callbacks over the last day (GET apps/health.json). */
export interface WebhookHealth {
  app: number;
  since: number;
  delivered: number;
  failed: number;
  retrying: number;
  queued: number;
  failed_total: number;
  success_rate: number | null;
  latency_ms: { p50: number | null; p95: number | null; samples: number };
  last_error: { delivery: number; at: number; status_code: number | null; error: string } | null;
}

export interface TestCallback {
  ok: boolean;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface Delivery {
  id: number;
  uuid: string;
  /** the message delivered; null for an alert */
  message_id: number | null;
  /** what the callback carried (absent from servers before alert callbacks) */
  kind?: 'message' | 'alert';
  alert_id?: number | null;
  when: number | null;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt: number | null;
  created: number | null;
  delivered: number | null;
}

export interface Decoded {
  msg?: {
    extra: { entry_id: number; frame_type: string; code: string };
    custom: Record<string, unknown>;
  };
}

export interface ExplainedField {
  name: string;
  offset: number;
  bits: string;
  bitLength: number;
  raw: string;
  meaning: string;
}

export interface Explained {
  protocol: Protocol;
  frame: string;
  valid: boolean;
  reason?: string;
  fields: ExplainedField[];
  decoded: Decoded;
}

export type Flag = 'active' | 'watch' | 'status' | 'bidirval';

export type ModuleSort = 'lastseen' | 'alerts' | 'battery' | 'name' | 'serial';
export type ModuleState = 'alerting' | 'low-battery' | 'seen-24h' | 'silent' | 'never-seen' | 'inactive' | 'watched';

/** The module list's filter, as `modules/list.json` takes it. */
export interface ModuleFilter {
  q?: string;
  tag?: string;
  state?: ModuleState;
  app?: number;
  notapp?: number;
}

export interface ModuleListQuery extends ModuleFilter {
  sort?: ModuleSort;
  order?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export interface ModuleRow {
  id: string;
  serial: string;
  protocol: Protocol;
  name: string | null;
  tags: string[];
  lastseen: number | null;
  battery: 'ON' | 'OFF' | 'UNKNOWN';
  level: 'ON' | 'OFF' | 'UNKNOWN';
  network: 'ON' | 'OFF' | 'UNKNOWN';
  active: boolean;
  watched: boolean;
  msgs: number;
  losts: number;
  alerts: number;
  children: number;
}

export interface ModuleListPage {
  total: number;
  offset: number;
  limit: number;
  modules: ModuleRow[];
}

export interface DeviceLabels {
  serial: string;
  index: number;
  name: string | null;
  tags: string[];
  notes: string | null;
}

export interface Alert {
  id: number;
  module: string;
  device: string;
  /** the device's name, null when unnamed */
  name: string | null;
  kind: string;
  message: string;
  when: number;
  message_id: number | null;
  ended: number | null;
  end_message: string | null;
  acked: number | null;
}

/** `GET /iot/developers/overview.json`: the landing page in one call. */
export interface Overview {
  generated: number;
  modules: { total: number; seen_24h: number; never_seen: number; low_battery: number };
  alerts: { open: number; lost_contact: number; latest: Alert[]; lost_contact_latest: Alert[] };
  deliveries: { failed: number; apps: { id: number; name: string; failed: number; last_failed: number | null; last_error: string | null }[] };
  uplinks: { hour: number; count: number }[];
}

/** A Sigfox uplink as received: one rinfo per base station; numbers as decimal strings ("0": none). */
export interface RawMessage {
  device: string;
  time: number;
  data: string;
  snr: string;
  seqNumber?: number;
  rinfos: { tap: string; snr: string; rssi: string }[];
}

/** Where a retention in force comes from: the module's own choice, the longest of its apps', or the operator. */
export type RetentionSource = { from: 'module' } | { from: 'app'; app: number; name: string } | { from: 'default' };

/** Whether the account's alerts are emailed to it, and whether the server can send email at all. */
export interface AlertEmailSetting {
  email: boolean;
  email_available: boolean;
}

export interface Retention {
  serial: string;
  messages_days: number | null;
  raw_days: number | null;
  effective: { messages_days: number; raw_days: number };
  source: { messages_days: RetentionSource; raw_days: RetentionSource };
}

/** An app's choice for the modules attached to it (null: none), beside the operator's defaults. */
export interface AppRetention {
  id: number;
  messages_days: number | null;
  raw_days: number | null;
  defaults: { messages_days: number; raw_days: number };
}
