// The queries every uplink runs, compiled once (see prepared.ts). Arguments are positional: each
// query's builder names them.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database, DeviceRow, MessageRow, NewMessage } from '../storage/schema.js';
import { prepared } from './prepared.js';

type Db = Kysely<Database>;

const moduleWithDevice = (db: Db, serial: string) =>
  db
    .selectFrom('modules')
    .innerJoin('devices', (join) => join.onRef('devices.module_serial', '=', 'modules.serial').on('devices.idx', '=', 0))
    .selectAll('devices')
    .select([
      'modules.protocol as m_protocol',
      'modules.last_cpt as m_last_cpt',
      'modules.last_seq as m_last_seq',
      'modules.last_time_s as m_last_time_s',
      'modules.last_when_ms as m_last_when_ms',
      'modules.account_id as m_account_id',
    ])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('app_modules')
            .innerJoin('apps', 'apps.id', 'app_modules.app_id')
            .select('apps.id')
            .whereRef('app_modules.module_serial', '=', 'modules.serial')
            .where('apps.callback_url', 'is not', null),
        )
        .as('m_callbacks'),
    )
    .where('modules.serial', '=', serial);

/** A module's own device with the module's state (`m_` columns). */
export type ModuleWithDevice = DeviceRow & {
  m_protocol: string;
  m_last_cpt: number | null;
  m_last_seq: number | null;
  m_last_time_s: number | null;
  m_last_when_ms: number | null;
  /** The owner (null: not registered). */
  m_account_id: number | null;
  /** An app with a callback URL is attached (1/0 on SQLite, a boolean on PostgreSQL). */
  m_callbacks: number | boolean;
};

/** The module and its own device; the locking form holds both rows until commit. */
export const selectModule = prepared((db: Db, serial: string) => moduleWithDevice(db, serial));
export const lockModule = prepared((db: Db, serial: string) => moduleWithDevice(db, serial).forUpdate());

const RAW_COLUMNS = ['module_serial', 'seq_number', 'time_s', 'data', 'snr', 'avg_snr', 'lat', 'lng', 'received_at'] as const;
export type RawValues = [string, number | null, number, string, number | null, number | null, number | null, number | null, number];
const rawRow = (v: RawValues) => Object.fromEntries(RAW_COLUMNS.map((column, i) => [column, v[i]])) as Record<(typeof RAW_COLUMNS)[number], never>;

/**
 * Inserts the raw message unless this uplink is stored already: the same (sequence number, network
 * time), or without a sequence number the same (time, frame).
 */
export const insertRawBySeq = prepared((db: Db, ...v: RawValues) =>
  db
    .insertInto('raw_messages')
    .values(rawRow(v))
    .onConflict((oc) => oc.columns(['module_serial', 'seq_number', 'time_s']).where('seq_number', 'is not', null).doNothing())
    .returning('id'),
);
export const insertRawNoSeq = prepared((db: Db, ...v: RawValues) =>
  db
    .insertInto('raw_messages')
    .values(rawRow(v))
    .onConflict((oc) => oc.columns(['module_serial', 'time_s', 'data']).where('seq_number', 'is', null).doNothing())
    .returning('id'),
);

export const findRawBySeq = prepared((db: Db, serial: string, seqNumber: number, timeS: number) =>
  db
    .selectFrom('raw_messages')
    .select(['id', 'snr'])
    .where('module_serial', '=', serial)
    .where('seq_number', '=', seqNumber)
    .where('time_s', '=', timeS),
);
export const findRawNoSeq = prepared((db: Db, serial: string, timeS: number, data: string) =>
  db
    .selectFrom('raw_messages')
    .select(['id', 'snr'])
    .where('module_serial', '=', serial)
    .where('seq_number', 'is', null)
    .where('time_s', '=', timeS)
    .where('data', '=', data),
);

export const insertRinfo = prepared((db: Db, rawId: number, tap: string, rssi: number | null, snr: number | null) =>
  db.insertInto('rinfos').values({ raw_id: rawId, tap, rssi, snr }).onConflict((oc) => oc.columns(['raw_id', 'tap']).doNothing()).returning('raw_id'),
);

export const setRawSnr = prepared((db: Db, rawId: number, snr: number) => db.updateTable('raw_messages').set({ snr }).where('id', '=', rawId));

/** The module's state after an uplink; a NULL argument leaves its column as it is. */
export const updateModuleState = prepared((db: Db, serial: string, cpt: number | null, seq: number | null, timeS: number | null, whenMs: number | null) =>
  db
    .updateTable('modules')
    .set((eb) => ({
      last_cpt: eb.fn.coalesce(eb.val(cpt), 'last_cpt'),
      last_seq: eb.fn.coalesce(eb.val(seq), 'last_seq'),
      last_time_s: eb.fn.coalesce(eb.val(timeS), 'last_time_s'),
      last_when_ms: eb.fn.coalesce(eb.val(whenMs), 'last_when_ms'),
    }))
    .where('serial', '=', serial),
);

export const childDevice = prepared((db: Db, moduleSerial: string, index: number) =>
  db.selectFrom('devices').selectAll().where('module_serial', '=', moduleSerial).where('idx', '=', index),
);

/** The fields a device update may set, in argument order. */
export const DEVICE_FIELDS = ['battery', 'level', 'network', 'tamper', 'temp', 'uid', 'category'] as const;
export type DeviceField = (typeof DEVICE_FIELDS)[number];

/** A device's lost-uplink count after adding `delta` (negative: found again), never below zero. */
export const lostsAfter = (delta: number) => sql<number>`CASE WHEN losts + ${delta} > 0 THEN losts + ${delta} ELSE 0 END`;

const deviceUpdates = new Map<string, ReturnType<typeof deviceUpdate>>();

/** Which columns an update writes: fields, whether a message is counted, the device was heard, announced its period, lost uplinks. */
export interface DeviceUpdateShape {
  fields: readonly DeviceField[];
  message: boolean;
  seen: boolean;
  period: boolean;
  losts: boolean;
}

/**
 * One prepared update per shape, with arguments: the fields' values, then the time heard (if any),
 * then the announced period (if any), then the lost uplinks to add (if any), then the device id.
 */
function deviceUpdate({ fields, message, seen, period, losts }: DeviceUpdateShape) {
  return prepared((db: Db, ...v: unknown[]) => {
    const seenAt = v[fields.length] as number;
    return db
      .updateTable('devices')
      .set((eb) => ({
        ...Object.fromEntries(fields.map((field, i) => [field, v[i] as never])),
        ...(message && { msgs: eb('msgs', '+', 1) }),
        ...(seen && {
          firstseen: eb.fn.coalesce('firstseen', eb.val(seenAt)),
          lastseen: sql<number>`CASE WHEN lastseen IS NULL OR lastseen < ${seenAt} THEN ${seenAt} ELSE lastseen END`,
        }),
        ...(period && { period_s: v[fields.length + (seen ? 1 : 0)] as number }),
        ...(losts && { losts: lostsAfter(v[v.length - 2] as number) }),
      }))
      .where('id', '=', v[v.length - 1] as number)
      .returningAll();
  });
}

export function updateDeviceQuery(shape: DeviceUpdateShape) {
  const key = `${shape.fields.join(',')}|${shape.message}|${shape.seen}|${shape.period}|${shape.losts}`;
  let query = deviceUpdates.get(key);
  if (query === undefined) {
    query = deviceUpdate(shape);
    deviceUpdates.set(key, query);
  }
  return query;
}

export const MESSAGE_COLUMNS = [
  'module_serial', 'device_id', 'raw_id', 'when_ms', 'time_s', 'type', 'station', 'lvl', 'frame', 'frame_type',
  'code', 'entry_id', 'stamp', 'cpt', 'retry', 'custom', 'contrib', 'ctxt', 'body',
] as const satisfies readonly (keyof NewMessage)[];

const insertMessageQuery = prepared((db: Db, ...v: unknown[]) =>
  db
    .insertInto('messages')
    .values(Object.fromEntries(MESSAGE_COLUMNS.map((column, i) => [column, v[i]])) as unknown as NewMessage)
    .returning('id'),
);

export const insertMessage = (db: Db, message: NewMessage) => insertMessageQuery(db, ...MESSAGE_COLUMNS.map((column) => message[column]));

/** A stored message's header fields, for repetition detection. */
export type RecentFrame = Pick<MessageRow, 'entry_id' | 'frame_type' | 'stamp' | 'frame'>;

/** Device columns a frame may change; counters are incremented in SQL, never read-modify-written. */
export interface DeviceChanges {
  fields?: Partial<Pick<DeviceRow, 'battery' | 'level' | 'network' | 'tamper' | 'temp' | 'uid' | 'category'>>;
  /** one more message concerns the device */
  message?: boolean;
  /** the device was heard at this time (epoch ms) */
  seenAt?: number;
  /** the device announced it sends a keep-alive this often (seconds) */
  periodS?: number;
  /** uplinks found lost (negative: found again), never below zero */
  losts?: number;
}
