// The ingest queries built with Kysely's builder as usual: neither prepared (ingest-queries.ts) nor
// batched with a round's other uplinks (batched-queries.ts). Most are rare; `recentFrames`,
// `childDevice` and `updateDeviceAlone` are the one-by-one (SQLite) halves of the store's methods.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Protocol } from '../protocol/udm/index.js';
import type { Database, DeviceRow } from '../storage/schema.js';
import * as q from './ingest-queries.js';
import type { DeviceChanges } from './ingest-queries.js';

type Db = Kysely<Database>;

/** The same station again: keep its best reception, so a replay changes nothing. */
export const keepBestReception = (trx: Db, rawId: number, tap: string, rssi: number | null, snr: number) =>
  trx
    .updateTable('rinfos')
    .set({ snr, rssi })
    .where('raw_id', '=', rawId)
    .where('tap', '=', tap)
    .where((eb) => eb.or([eb('snr', 'is', null), eb('snr', '<', snr)]))
    .execute();

export const switchProtocol = (trx: Db, serial: string, protocol: Protocol) => trx.updateTable('modules').set({ protocol }).where('serial', '=', serial).execute();

/** Adds `delta` (negative: a late uplink found) to a device's lost-uplink count, never below zero. */
export const addLosts = (trx: Db, deviceId: number, delta: number) =>
  trx
    .updateTable('devices')
    .set({ losts: sql<number>`CASE WHEN losts + ${delta} > 0 THEN losts + ${delta} ELSE 0 END` })
    .where('id', '=', deviceId)
    .execute();

/** The module's newest messages, newest first (keyset scan on the history index). */
export const recentFrames = (trx: Db, serial: string, limit: number) =>
  trx
    .selectFrom('messages')
    .select(['entry_id', 'frame_type', 'stamp', 'frame'])
    .where('module_serial', '=', serial)
    .orderBy('module_serial', 'desc')
    .orderBy('when_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/** Device `<serial>/<index>` of the module unless it exists (then nothing: undefined). */
export const insertChildDevice = (trx: Db, moduleSerial: string, index: number) =>
  trx
    .insertInto('devices')
    .values({ module_serial: moduleSerial, idx: index, serial: `${moduleSerial}/${index}` })
    .onConflict((oc) => oc.columns(['module_serial', 'idx']).doNothing())
    .returningAll()
    .executeTakeFirst();

/** One device's update on its own (outside rounds): the statement fits the changes it writes. */
export async function updateDeviceAlone(trx: Db, id: number, changes: DeviceChanges): Promise<DeviceRow | undefined> {
  const fields = q.DEVICE_FIELDS.filter((field) => changes.fields?.[field] !== undefined);
  const seen = changes.seenAt !== undefined;
  const period = changes.periodS !== undefined;
  const losts = changes.losts !== undefined && changes.losts !== 0;
  const values = [...fields.map((field) => changes.fields?.[field]), ...(seen ? [changes.seenAt] : []), ...(period ? [changes.periodS] : []), ...(losts ? [changes.losts] : []), id];
  const [row] = await q.updateDeviceQuery({ fields, message: changes.message === true, seen, period, losts })(trx, ...values);
  return row;
}
