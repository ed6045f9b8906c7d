import type { Kysely } from 'kysely';
import type { App, ModuleListItem } from '../domain/types.js';
import type { AppRow, Database } from './schema.js';

const toApp = (row: AppRow): App => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  description: row.description,
  callbackUrl: row.callback_url,
  key: row.key,
  secret: row.secret,
  created: new Date(row.created_at),
  reftime: row.reftime === null ? null : new Date(row.reftime),
});

export interface AppFields {
  name: string;
  description: string;
  callbackUrl: string | null;
}

export class AppsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async listByAccount(accountId: number): Promise<App[]> {
    const rows = await this.db.selectFrom('apps').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toApp);
  }

  /** The app when the account owns it. */
  async owned(accountId: number, id: number): Promise<App | undefined> {
    const row = await this.db
      .selectFrom('apps')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toApp(row);
  }

  async create(accountId: number, fields: AppFields, key: string, secret: string): Promise<App> {
    const row = await this.db
      .insertInto('apps')
      .values({
        account_id: accountId,
        name: fields.name,
        description: fields.description,
        callback_url: fields.callbackUrl,
        key,
        secret,
        created_at: Date.now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toApp(row);
  }

  async update(accountId: number, id: number, fields: Partial<AppFields>): Promise<App | undefined> {
    const row = await this.db
      .updateTable('apps')
      .set({
        ...(fields.name !== undefined && { name: fields.name }),
        ...(fields.description !== undefined && { description: fields.description }),
        ...(fields.callbackUrl !== undefined && { callback_url: fields.callbackUrl }),
        reftime: Date.now(),
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
    return row && toApp(row);
  }

  async delete(accountId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('apps').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async attach(appId: number, serials: string[]): Promise<void> {
    if (serials.length === 0) return;
    const now = Date.now();
    await this.db
      .insertInto('app_modules')
      .values(serials.map((serial) => ({ app_id: appId, module_serial: serial, attached_at: now })))
      .onConflict((oc) => oc.columns(['app_id', 'module_serial']).doNothing())
      .execute();
  }

  async detach(appId: number, serials: string[]): Promise<void> {
    if (serials.length === 0) return;
    await this.db.deleteFrom('app_modules').where('app_id', '=', appId).where('module_serial', 'in', serials).execute();
  }

  async modules(appId: number): Promise<ModuleListItem[]> {
    return this.db
      .selectFrom('app_modules')
      .innerJoin('devices', (join) => join.onRef('devices.module_serial', '=', 'app_modules.module_serial').on('devices.idx', '=', 0))
      .select(['devices.id as id', 'app_modules.module_serial as serial'])
      .where('app_modules.app_id', '=', appId)
      .orderBy('app_modules.module_serial')
      .execute();
  }
}
