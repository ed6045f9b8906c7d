import type { Kysely } from 'kysely';
import type { Database, MessageRow, RawMessageRow } from './schema.js';

/** What an export shows of a message: its time, device, type, decoded values and signal. */
export type ExportRow = Pick<MessageRow, 'id' | 'when_ms' | 'type' | 'lvl' | 'station' | 'frame' | 'custom'> & { device_serial: string };

/** What a raw export shows of an uplink: its network time, sequence number, data and every station that heard it. */
export type RawExportRow = Pick<RawMessageRow, 'id' | 'time_s' | 'seq_number' | 'data'> & { stations: { tap: string; rssi: number | null; snr: number | null }[] };

/** One page of a raw export: a module's uplinks by network time (epoch s), oldest first. */
export interface RawExportPage {
  moduleSerial: string;
  /** Inclusive, epoch s. */
  fromS: number;
  /** Exclusive, epoch s. */
  toS: number;
  after?: { timeS: number; id: number } | undefined;
  limit: number;
}

/** One page of an export: a module (or one of its devices) in a time range, oldest first. */
export interface ExportPage {
  moduleSerial: string;
  deviceId?: number | undefined;
  /** Inclusive, epoch ms. */
  from: number;
  /** Exclusive, epoch ms. */
  to: number;
  /** The last row of the previous page: the page starts strictly after it. */
  after?: { when: number; id: number } | undefined;
  limit: number;
}

/** Keyset pages for exports, so a range of any size is read a bounded page at a time. */
export class ExportRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Oldest first on the (module_serial|device_id, when_ms, id) index: each page is a range scan that
   * starts where the last one stopped (its lower bound is the last row's time), its cost independent
   * of how far into the range it is.
   */
  async messages(page: ExportPage): Promise<ExportRow[]> {
    let query = this.db
      .selectFrom('messages')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .select(['messages.id', 'messages.when_ms', 'messages.type', 'messages.lvl', 'messages.station', 'messages.frame', 'messages.custom', 'devices.serial as device_serial']);
    query =
      page.deviceId !== undefined
        ? query.where('messages.device_id', '=', page.deviceId)
        : query.where('messages.module_serial', '=', page.moduleSerial);
    // After a page, the index range starts at the last row's time (not at `from`): otherwise each
    // page would step over every row before it again, and a long export would grow quadratically.
    const after = page.after;
    query = query.where('messages.when_ms', '>=', after === undefined ? page.from : Math.max(page.from, after.when)).where('messages.when_ms', '<', page.to);
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([eb('messages.when_ms', '>', after.when), eb.and([eb('messages.when_ms', '=', after.when), eb('messages.id', '>', after.id)])]),
      );
    }
    return query.orderBy('messages.when_ms', 'asc').orderBy('messages.id', 'asc').limit(page.limit).execute();
  }

  /**
   * Oldest first on the (module_serial, time_s, id) index of raw messages, a keyset page at a time
   * starting at the last row's time, with each uplink's station reports read in one query per page.
   */
  async rawMessages(page: RawExportPage): Promise<RawExportRow[]> {
    let query = this.db
      .selectFrom('raw_messages')
      .select(['id', 'time_s', 'seq_number', 'data'])
      .where('module_serial', '=', page.moduleSerial)
      .where('time_s', '>=', page.after === undefined ? page.fromS : Math.max(page.fromS, page.after.timeS))
      .where('time_s', '<', page.toS);
    const after = page.after;
    if (after !== undefined) {
      query = query.where((eb) => eb.or([eb('time_s', '>', after.timeS), eb.and([eb('time_s', '=', after.timeS), eb('id', '>', after.id)])]));
    }
    const rows = await query.orderBy('module_serial').orderBy('time_s').orderBy('id').limit(page.limit).execute();
    if (rows.length === 0) return [];
    const rinfos = await this.db.selectFrom('rinfos').select(['raw_id', 'tap', 'rssi', 'snr']).where('raw_id', 'in', rows.map((row) => row.id)).orderBy('raw_id').orderBy('tap').execute();
    const byRaw = new Map<number, RawExportRow['stations']>();
    for (const { raw_id: rawId, ...station } of rinfos) {
      const list = byRaw.get(Number(rawId)) ?? [];
      list.push(station);
      byRaw.set(Number(rawId), list);
    }
    return rows.map((row) => ({ ...row, stations: byRaw.get(Number(row.id)) ?? [] }));
  }
}
