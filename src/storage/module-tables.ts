// The tables of the fleet and what it sends: modules, their devices, the apps they are attached to,
// raw and decoded messages, and the owners' retention choices. Units: see `Database` in schema.ts.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

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

export type ModuleRow = Selectable<ModulesTable>;
export type DeviceRow = Selectable<DevicesTable>;
export type DeviceUpdate = Updateable<DevicesTable>;
export type AppRow = Selectable<AppsTable>;
export type RawMessageRow = Selectable<RawMessagesTable>;
export type RinfoRow = Selectable<RinfosTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
