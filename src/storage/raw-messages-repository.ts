import type { Kysely } from 'kysely';
import type { Database, RawMessageRow, RinfoRow } from './schema.js';

export interface RawMessage extends RawMessageRow {
  rinfos: RinfoRow[];
}

/** Sigfox uplinks as received, one per uplink, with one rinfo per base station that heard it. */
export class RawMessagesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Newest first, strictly before `beforeS` (epoch seconds) when given: a keyset range scan. */
  async history(moduleSerial: string, range: { beforeS?: number; limit: number }): Promise<RawMessage[]> {
    let query = this.db.selectFrom('raw_messages').selectAll().where('module_serial', '=', moduleSerial);
    if (range.beforeS !== undefined) query = query.where('time_s', '<', range.beforeS);
    const rows = await query
      .orderBy('module_serial', 'desc')
      .orderBy('time_s', 'desc')
      .orderBy('id', 'desc')
      .limit(range.limit)
      .execute();
    if (rows.length === 0) return [];
    const rinfos = await this.db
      .selectFrom('rinfos')
      .selectAll()
      .where('raw_id', 'in', rows.map((row) => row.id))
      .orderBy('raw_id')
      .orderBy('tap')
      .execute();
    const byRaw = new Map<number, RinfoRow[]>();
    for (const rinfo of rinfos) {
      const list = byRaw.get(rinfo.raw_id) ?? [];
      list.push(rinfo);
      byRaw.set(rinfo.raw_id, list);
    }
    return rows.map((row) => ({ ...row, rinfos: byRaw.get(row.id) ?? [] }));
  }
}
