// PostgreSQL: raising and ending alerts as statements of the round (round.ts), so that the uplinks
// of a batch whose frames carry alarm events share one round trip for each instead of taking one
// apiece. Fixed texts (named statements); rows matched back by device, unique within a round.
import type { Alert, AlertKind } from '../domain/alerts.js';
import { toAlert } from '../storage/alerts-repository.js';
import type { AlertWithDevice, NewAlert } from '../storage/alerts-repository.js';
import { enqueueAlertDeliveries } from '../delivery/outbox.js';
import type { BatchedStatement } from './round.js';
import { hot, rows } from './unnest.js';

// At most one open alert per device and kind (the partial unique index); a raised alert counts on
// its device, whose serial and name come back with it. An account asking for email gets the alert
// marked for the mailer.
const RAISE = hot(
  'WITH a AS (INSERT INTO alerts (account_id, module_serial, device_id, kind, message, raised_at, message_id, email_pending) ' +
    'SELECT u.account_id, u.module_serial, u.device_id, u.kind, u.message, u.raised_at, u.message_id, ' +
    'COALESCE((SELECT s.email FROM alert_settings s WHERE s.account_id = u.account_id), 0) ' +
    'FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[]) ' +
    'u(account_id, module_serial, device_id, kind, message, raised_at, message_id) ' +
    'ON CONFLICT (device_id, kind) WHERE ended_at IS NULL DO NOTHING RETURNING *), ' +
    'd AS (UPDATE devices d SET alerts = d.alerts + 1 FROM a WHERE d.id = a.device_id AND d.id = ANY($3::bigint[]) RETURNING d.id, d.serial, d.name) ' +
    'SELECT a.*, d.serial AS device_serial, d.name AS device_name FROM a JOIN d ON d.id = a.device_id',
);

/** Raises each alert unless one of its kind is open on the device; the alert, or undefined. */
export const raiseAlerts: BatchedStatement<NewAlert, Alert | undefined> = {
  async run(trx, alerts) {
    const columns = [
      alerts.map((a) => a.accountId),
      alerts.map((a) => a.moduleSerial),
      alerts.map((a) => a.deviceId),
      alerts.map((a) => a.kind),
      alerts.map((a) => a.message),
      alerts.map((a) => a.at),
      alerts.map((a) => a.messageId ?? null),
    ];
    const byDevice = new Map((await rows<AlertWithDevice>(trx, RAISE, columns)).map((row) => [row.device_id, toAlert(row)]));
    return alerts.map((alert) => byDevice.get(alert.deviceId));
  },
};

const END = hot(
  'WITH e AS (UPDATE alerts a SET ended_at = u.ended_at, end_message = u.end_message ' +
    'FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[]) u(device_id, kind, end_message, ended_at) ' +
    'WHERE a.device_id = u.device_id AND a.kind = u.kind AND a.ended_at IS NULL AND a.device_id = ANY($1::bigint[]) RETURNING a.*) ' +
    'SELECT e.*, d.serial AS device_serial, d.name AS device_name FROM e JOIN devices d ON d.id = e.device_id',
);

/** One device's open alerts of these kinds to end, with the text and time that end them. */
export interface AlertsEnd {
  deviceId: number;
  kinds: readonly AlertKind[];
  text: string;
  at: number;
}

/** Ends each device's open alerts of those kinds; the ended ones, per call. */
export const endAlerts: BatchedStatement<AlertsEnd, Alert[]> = {
  async run(trx, ends) {
    const pairs = ends.flatMap((end) => end.kinds.map((kind) => [end.deviceId, kind, end.text, end.at] as const));
    const ended = pairs.length === 0 ? [] : await rows<AlertWithDevice>(trx, END, [0, 1, 2, 3].map((column) => pairs.map((pair) => pair[column])));
    return ends.map((end) => ended.filter((row) => row.device_id === end.deviceId).map(toAlert));
  },
};

/** Queues the raised alerts' callbacks (the outbox), every call of the round in two statements. */
export const enqueueAlerts: BatchedStatement<readonly Alert[], void> = {
  async run(trx, lists) {
    await enqueueAlertDeliveries(trx, lists.flat());
    return lists.map(() => undefined);
  },
};
