import type { Kysely } from 'kysely';
import type { Database, MessageRow } from './schema.js';

/** What an export shows of a message: its time, device, type, decoded values and signal. */
export type ExportRow = Pick<MessageRow, 'id' | 'when_ms' | 'type' | 'lvl' | 'station' | 'frame' | 'custom'> & { device_serial: string };

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
   * starts where the last one stopped, its cost independent of how far into the range it is.
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
    query = query.where('messages.when_ms', '>=', page.from).where('messages.when_ms', '<', page.to);
    const after = page.after;
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([eb('messages.when_ms', '>', after.when), eb.and([eb('messages.when_ms', '=', after.when), eb('messages.id', '>', after.id)])]),
      );
    }
    return query.orderBy('messages.when_ms', 'asc').orderBy('messages.id', 'asc').limit(page.limit).execute();
  }
}
