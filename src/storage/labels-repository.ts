import type { Kysely } from 'kysely';
import { decodeTags, encodeTags } from '../domain/labels.js';
import type { Labels } from '../domain/labels.js';
import type { Database } from './schema.js';

export interface DeviceLabels extends Labels {
  id: number;
  serial: string;
  index: number;
}

const BATCH = 500;

/** Names, tags and notes on devices (modules are their own device, index 0). */
export class LabelsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async ofModule(moduleSerial: string): Promise<DeviceLabels[]> {
    const rows = await this.db
      .selectFrom('devices')
      .select(['id', 'serial', 'idx', 'name', 'notes', 'tags'])
      .where('module_serial', '=', moduleSerial)
      .orderBy('idx')
      .execute();
    return rows.map((row) => ({ id: row.id, serial: row.serial, index: row.idx, name: row.name, notes: row.notes, tags: decodeTags(row.tags) }));
  }

  async set(deviceId: number, labels: Partial<Labels>): Promise<void> {
    const { tags, ...text } = labels;
    const changes = { ...text, ...(tags !== undefined && { tags: encodeTags(tags) }) };
    if (Object.keys(changes).length === 0) return;
    await this.db.updateTable('devices').set(changes).where('id', '=', deviceId).execute();
  }

  /**
   * Adds and removes tags on the modules' own devices, in batches; devices that end up with the same
   * tags are written by one statement, so tagging a whole fleet alike costs a few statements.
   */
  async retag(moduleSerials: string[], change: (tags: string[]) => string[], onProgress?: (done: number, total: number) => void): Promise<number> {
    let changed = 0;
    for (let start = 0; start < moduleSerials.length; start += BATCH) {
      const batch = moduleSerials.slice(start, start + BATCH);
      await this.db.transaction().execute(async (trx) => {
        const rows = await trx.selectFrom('devices').select(['id', 'tags']).where('module_serial', 'in', batch).where('idx', '=', 0).execute();
        const groups = new Map<string, number[]>();
        for (const row of rows) {
          const next = encodeTags(change(decodeTags(row.tags)));
          if (next === row.tags) continue;
          groups.set(next, [...(groups.get(next) ?? []), row.id]);
          changed++;
        }
        for (const [tags, ids] of groups) await trx.updateTable('devices').set({ tags }).where('id', 'in', ids).execute();
      });
      onProgress?.(Math.min(start + BATCH, moduleSerials.length), moduleSerials.length);
    }
    return changed;
  }
}
