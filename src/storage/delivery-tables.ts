// The tables of what goes out and who sends it: callback deliveries and their per-app sending slots,
// alerts and the accounts' choice to get them by email, and the leases background jobs run under.
// Units: see `Database` in schema.ts.
import type { Generated, Selectable } from 'kysely';

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

/** A per-app sending slot a worker holds until `until_ms` (database clock); taken over once past it. */
export interface DeliverySlotsTable {
  app_id: number;
  slot: number;
  holder: string;
  until_ms: number;
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
export interface LeasesTable {
  name: string;
  owner: string;
  until_ms: number;
}

export type DeliveryRow = Selectable<DeliveriesTable>;
export type AlertRow = Selectable<AlertsTable>;
