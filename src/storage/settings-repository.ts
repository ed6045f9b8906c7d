import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class SettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The stored value, or `make()`'s value stored now; concurrent first calls agree on one value. */
  async getOrCreate(name: string, make: () => string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ name, value: make() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
    return row.value;
  }
}
