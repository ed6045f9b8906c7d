import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { Capabilities } from '../storage/capabilities.js';
import type { Database } from '../storage/schema.js';

/** The database's clock in epoch ms: every process judges a lease by the same clock. */
function databaseNow(capabilities: Capabilities): RawBuilder<number> {
  return capabilities.dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

/**
 * A named lease in the `leases` table, so a job runs on one process at a time across every process
 * sharing the database. The holder renews it well within its term; if the holder dies, another
 * process takes it once the term has passed on the database's clock.
 */
export class Lease {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities: Capabilities,
    readonly name: string,
    readonly owner: string,
    private readonly termMs: number,
  ) {}

  /** Takes or renews the lease; true while this owner holds it. One statement: two processes cannot both win. */
  async acquire(): Promise<boolean> {
    const now = databaseNow(this.capabilities);
    const row = await this.db
      .insertInto('leases')
      .values({ name: this.name, owner: this.owner, until_ms: sql<number>`${now} + ${this.termMs}` })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ owner: this.owner, until_ms: sql<number>`${now} + ${this.termMs}` })
          .where((eb) => eb.or([eb('leases.owner', '=', this.owner), eb('leases.until_ms', '<', now)])),
      )
      .returning('owner')
      .executeTakeFirst();
    return row?.owner === this.owner;
  }

  /** Gives the lease up at once (shutdown), so the next process need not wait out the term. */
  async release(): Promise<void> {
    await this.db.deleteFrom('leases').where('name', '=', this.name).where('owner', '=', this.owner).execute();
  }
}
