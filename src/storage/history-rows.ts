// Messages stored before their wire form (`body`) was: what history shows of them, read as columns.
import type { Kysely } from 'kysely';
import type { Database, MessageRow } from './schema.js';

/** What the device API's history shows of a message. */
const HISTORY_COLUMNS = [
  'messages.id',
  'messages.device_id',
  'messages.when_ms',
  'messages.time_s',
  'messages.lvl',
  'messages.station',
  'messages.type',
  'messages.frame',
  'messages.custom',
  'messages.contrib',
  'messages.ctxt',
] as const;
export type HistoryRow = Pick<MessageRow, 'id' | 'device_id' | 'when_ms' | 'time_s' | 'lvl' | 'station' | 'type' | 'frame' | 'custom' | 'contrib' | 'ctxt'> & {
  device_serial: string;
};

/** The wire columns of the messages given by id and time (the time bounds prune partitions on PostgreSQL). */
export function historyRows(db: Kysely<Database>, keys: readonly { id: number; when_ms: number }[]): Promise<HistoryRow[]> {
  const times = keys.map((key) => Number(key.when_ms));
  return db
    .selectFrom('messages')
    .innerJoin('devices', 'devices.id', 'messages.device_id')
    .select([...HISTORY_COLUMNS, 'devices.serial as device_serial'])
    .where('messages.id', 'in', keys.map((key) => key.id))
    .where('messages.when_ms', '>=', Math.min(...times))
    .where('messages.when_ms', '<=', Math.max(...times))
    .execute();
}
