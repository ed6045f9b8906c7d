import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What the pruner deletes by age: messages by reception time, raw uplinks (with their rinfos) likewise. */
export type UplinkKind = 'messages' | 'raw';

/** An owner's choice in days per kind (0: forever); `null`: no choice. */
export interface ModuleRetention {
  messagesDays: number | null;
  rawDays: number | null;
}

export interface AppRetention extends ModuleRetention {
  appId: number;
  name: string;
}

/** One choice of a kind in force for a module: its own, or one of an app it is attached to. */
export interface Choice {
  serial: string;
  days: number;
}

export interface RetentionChoices {
  modules: Choice[];
  apps: Choice[];
}

const TABLES = {
  messages: { table: 'messages', time: 'when_ms', override: 'messages_days' },
  raw: { table: 'raw_messages', time: 'received_at', override: 'raw_days' },
} as const;

/**
 * Retention choices (per module, per app) and batched deletes. Every delete takes at most `batch` rows chosen by a
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

  async ofApp(appId: number): Promise<ModuleRetention> {
    const row = await this.db.selectFrom('app_retention').selectAll().where('app_id', '=', appId).executeTakeFirst();
    return { messagesDays: row?.messages_days ?? null, rawDays: row?.raw_days ?? null };
  }

  async setApp(appId: number, retention: ModuleRetention): Promise<void> {
    const values = { messages_days: retention.messagesDays, raw_days: retention.rawDays };
    if (values.messages_days === null && values.raw_days === null) {
      await this.db.deleteFrom('app_retention').where('app_id', '=', appId).execute();
      return;
    }
    await this.db
      .insertInto('app_retention')
      .values({ app_id: appId, ...values })
      .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
      .execute();
  }

  /** The account an app belongs to, for the operator's tools; undefined for no such app. */
  async appOwner(appId: number): Promise<number | undefined> {
    const row = await this.db.selectFrom('apps').select('account_id').where('id', '=', appId).executeTakeFirst();
    return row === undefined ? undefined : Number(row.account_id);
  }

  /** The choices of the apps a module is attached to (only apps that chose something), by app id. */
  async appsOfModule(serial: string): Promise<AppRetention[]> {
    const rows = await this.db
      .selectFrom('app_modules')
      .innerJoin('app_retention', 'app_retention.app_id', 'app_modules.app_id')
      .innerJoin('apps', 'apps.id', 'app_modules.app_id')
      .select(['apps.id', 'apps.name', 'app_retention.messages_days', 'app_retention.raw_days'])
      .where('app_modules.module_serial', '=', serial)
      .orderBy('apps.id')
      .execute();
    return rows.map((row) => ({ appId: Number(row.id), name: row.name, messagesDays: row.messages_days, rawDays: row.raw_days }));
  }

  /**
   * Every choice of this kind in days: modules' own, and for each module attached to an app that
   * chose, the app's (one row per app and module). The caller applies the precedence.
   */
  async choices(kind: UplinkKind): Promise<RetentionChoices> {
    const column = TABLES[kind].override;
    const modules = await this.db.selectFrom('module_retention').select(['module_serial', column]).where(column, 'is not', null).execute();
    const apps = await this.db
      .selectFrom('app_modules')
      .innerJoin('app_retention', 'app_retention.app_id', 'app_modules.app_id')
      .select(['app_modules.module_serial', `app_retention.${column}`])
      .where(`app_retention.${column}`, 'is not', null)
      .execute();
    return {
      modules: modules.map((row) => ({ serial: row.module_serial, days: row[column] as number })),
      apps: apps.map((row) => ({ serial: row.module_serial, days: row[column] as number })),
    };
  }

  /**
   * Deletes up to `batch` rows older than `before` (epoch ms): of one module, or (no module) of every
   * module without a choice of this kind, its own or an attached app's. Returns how many went.
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
            : ids
                .where('module_serial', 'not in', eb.selectFrom('module_retention').select('module_serial').where(override, 'is not', null))
                .where('module_serial', 'not in', (sub) =>
                  sub
                    .selectFrom('app_modules')
                    .innerJoin('app_retention', 'app_retention.app_id', 'app_modules.app_id')
                    .select('app_modules.module_serial')
                    .where(`app_retention.${override}`, 'is not', null),
                );
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
