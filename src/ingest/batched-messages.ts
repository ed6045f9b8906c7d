// PostgreSQL: a round's messages, their modules' state and their devices' state, in one statement
// (see batched-queries.ts for how a round's statements are built and matched back).
import type { DeviceRow, NewMessage } from '../storage/schema.js';
import type { BatchedStatement } from './round.js';
import { DEVICE_FIELDS, MESSAGE_COLUMNS } from './ingest-queries.js';
import type { DeviceChanges } from './ingest-queries.js';
import { SET_MODULES } from './batched-queries.js';
import { columns, hot, matched, rows } from './unnest.js';
import type { ModuleState } from './batched-queries.js';

/** A device update as the statement takes it: the device id, each of DEVICE_FIELDS, then msg, seen, period, lost. */
export type DeviceUpdate = unknown[];

export function deviceUpdate(id: number, changes: DeviceChanges): DeviceUpdate {
  return [id, ...DEVICE_FIELDS.map((field) => changes.fields?.[field] ?? null), changes.message ? 1 : 0, changes.seenAt ?? null, changes.periodS ?? null, changes.losts ?? 0];
}

/**
 * The device as `UPDATE_DEVICES` leaves it, from the row as this transaction last read it. Exact
 * for the module's own device, which the module lock holds; a child device's other columns are as
 * its look-up in this transaction found them.
 */
export function updatedDevice(row: DeviceRow, changes: DeviceChanges): DeviceRow {
  const next = { ...row };
  for (const field of DEVICE_FIELDS) {
    const value = changes.fields?.[field];
    if (value !== undefined && value !== null) next[field] = value;
  }
  if (changes.message) next.msgs = row.msgs + 1;
  const seen = changes.seenAt;
  if (seen !== undefined) {
    next.firstseen = row.firstseen ?? seen;
    if (row.lastseen === null || row.lastseen < seen) next.lastseen = seen;
  }
  if (changes.periodS !== undefined) next.period_s = changes.periodS;
  next.losts = Math.max(0, row.losts + (changes.losts ?? 0));
  return next;
}

/** PostgreSQL types of the message columns, for unnest. */
const MESSAGE_TYPES: Record<(typeof MESSAGE_COLUMNS)[number], string> = {
  module_serial: 'text', device_id: 'bigint', raw_id: 'bigint', when_ms: 'bigint', time_s: 'bigint', type: 'text', station: 'text',
  lvl: 'float8', frame: 'text', frame_type: 'text', code: 'text', entry_id: 'integer', stamp: 'integer', cpt: 'integer', retry: 'integer',
  custom: 'text', contrib: 'text', ctxt: 'text', body: 'text',
};

const MESSAGES_INSERT = `INSERT INTO messages (${MESSAGE_COLUMNS.join(', ')}) SELECT * FROM unnest(${MESSAGE_COLUMNS.map((c, i) => `$${i + 1}::${MESSAGE_TYPES[c]}[]`).join(', ')}) RETURNING id, module_serial`;
// The module's state goes with its message (the message's `when` is part of it); the messages'
// module_serial array names the modules.
const STATE = MESSAGE_COLUMNS.length;
const SERIALS = `$${MESSAGE_COLUMNS.indexOf('module_serial') + 1}::text[]`;
const MODULES_UPDATE = SET_MODULES(SERIALS, `${SERIALS}, $${STATE + 1}::integer[], $${STATE + 2}::integer[], $${STATE + 3}::bigint[], $${STATE + 4}::bigint[]`);
// And each device's state, whatever it changes: a NULL field leaves its column as it is (a frame
// never sets a field to NULL), `msg` is 0 or 1, a NULL `seen` or `period` leaves the dates or the
// period alone. A column set to its own value keeps the update HOT. The caller knows the rows as
// they become (updatedDevice): nothing is returned.
const D = STATE + 5;
const DEVICES_UPDATE =
  `UPDATE devices d SET ${DEVICE_FIELDS.map((field) => `${field} = COALESCE(u.${field}, d.${field})`).join(', ')}, msgs = d.msgs + u.msg, ` +
  'firstseen = COALESCE(d.firstseen, u.seen), ' +
  'lastseen = CASE WHEN u.seen IS NOT NULL AND (d.lastseen IS NULL OR d.lastseen < u.seen) THEN u.seen ELSE d.lastseen END, ' +
  'period_s = COALESCE(u.period, d.period_s), losts = CASE WHEN d.losts + u.lost > 0 THEN d.losts + u.lost ELSE 0 END ' +
  `FROM unnest($${D}::bigint[], ${DEVICE_FIELDS.map((_, i) => `$${D + i + 1}::text[]`).join(', ')}, $${D + DEVICE_FIELDS.length + 1}::integer[], ` +
  `$${D + DEVICE_FIELDS.length + 2}::bigint[], $${D + DEVICE_FIELDS.length + 3}::integer[], $${D + DEVICE_FIELDS.length + 4}::integer[]) u(id, ${DEVICE_FIELDS.join(', ')}, msg, seen, period, lost) ` +
  `WHERE d.id = u.id AND d.id = ANY($${D}::bigint[])`;
const INSERT_MESSAGES = hot(`WITH m AS (${MESSAGES_INSERT}), u AS (${MODULES_UPDATE}), d AS (${DEVICES_UPDATE}) SELECT id, module_serial FROM m`);

/** Inserts the messages and writes their modules' and devices' state; each message's id. */
export const insertMessages: BatchedStatement<{ message: NewMessage; state: ModuleState; devices: DeviceUpdate[] }, number> = {
  async run(trx, args) {
    const values = args.map(({ message, state }) => [...MESSAGE_COLUMNS.map((column) => message[column]), ...state.slice(1)]);
    const devices = columns(args.flatMap((arg) => arg.devices), DEVICE_FIELDS.length + 5);
    const inserted = await rows<{ id: number; module_serial: string }>(trx, INSERT_MESSAGES, [...columns(values, STATE + 4), ...devices]);
    return matched(args, inserted, (arg) => arg.message.module_serial, (row) => row.module_serial).map((row) => {
      if (!row) throw new Error('message not inserted');
      return row.id;
    });
  },
};
