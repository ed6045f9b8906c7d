import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What the pruner deletes by age: messages by reception time, raw uplinks (with their rinfos) likewise. */
export type UplinkKind = 'messages' | 'raw';

export interface ModuleRetention {
  messagesDays: number | null;
  rawDays: number | null;
}

const TABLES = {
  messages: { table: 'messages', time: 'when_ms', override: 'messages_days' },
  raw: { table: 'raw_messages', time: 'received_at', override: 'raw_days' },
} as const;

/**
 * Retention overrides and batched deletes. Every delete takes at most `batch` rows chosen by a
 * range scan on a time index, so one statement never holds SQLite (or PostgreSQL's locks) for long.
 */
export class RetentionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async ofModule(serial: string): Promise<ModuleRetention> {
    const row = await this.db.selectFrom('module_retention').selectAll().where('module_serial', '=', serial).executeTakeFirst();
    return { messagesDays: row?.messages_days ?? null, rawDays: row?.raw_days ?? null };
  }

  async setModule(serial: string, retention: ModuleRetention): Promise<void> {
    const values = { messages_days: retention.messagesDays, raw_days: retention.rawDays };
    if (values.messages_days === null && values.raw_days === null) {
      await this.db.deleteFrom('module_retention').where('module_serial', '=', serial).execute();
      return;
    }
    await this.db
      .insertInto('module_retention')
      .values({ module_serial: serial, ...values })
      .onConflict((oc) => oc.column('module_serial').doUpdateSet(values))
      .execute();
  }

  /** Modules whose owner chose a retention of this kind, with it in days. */
  async overrides(kind: UplinkKind): Promise<{ serial: string; days: number }[]> {
    const column = TABLES[kind].override;
    const rows = await this.db.selectFrom('module_retention').select(['module_serial', column]).where(column, 'is not', null).execute();
    return rows.map((row) => ({ serial: row.module_serial, days: row[column] as number }));
  }

  /**
   * Deletes up to `batch` rows older than `before` (epoch ms): of one module, or (no module) of every
   * module without an override of this kind. Returns how many went.
   */
  async deleteOlder(kind: UplinkKind, before: number, batch: number, module?: string): Promise<number> {
    const { table, time, override } = TABLES[kind];
    const result = await this.db
      .deleteFrom(table)
      .where('id', 'in', (eb) => {
        let ids = eb.selectFrom(table).select('id').where(time, '<', before);
        ids =
          module !== undefined
            ? ids.where('module_serial', '=', module)
            : ids.where('module_serial', 'not in', eb.selectFrom('module_retention').select('module_serial').where(override, 'is not', null));
        return ids.limit(batch);
      })
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Ended alerts raised before `before`; open ones stay whatever their age. */
  async deleteEndedAlerts(before: number, batch: number): Promise<number> {
    const result = await this.db
      .deleteFrom('alerts')
      .where('id', 'in', (eb) => eb.selectFrom('alerts').select('id').where('ended_at', 'is not', null).where('raised_at', '<', before).limit(batch))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
