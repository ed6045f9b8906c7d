import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Protocol } from '../protocol/udm/index.js';
import type { CatalogModule, ModuleListItem } from '../domain/types.js';
import type { Database, ModuleRow } from './schema.js';
import type { Capabilities } from './capabilities.js';
import { resetRegistration } from './registration-reset.js';
import { isLockConflict, writeChunk } from './catalog-chunk.js';
import type { CatalogEntry } from './catalog-chunk.js';

export type { CatalogEntry } from './catalog-chunk.js';

/** The columns a catalog module is made of. */
export const MODULE_COLUMNS = ['serial', 'key', 'pac', 'protocol', 'account_id', 'registered_at', 'registration', 'device_key'] as const;

export const toModule = (row: Pick<ModuleRow, (typeof MODULE_COLUMNS)[number]>): CatalogModule => ({
  serial: row.serial,
  key: row.key,
  pac: row.pac,
  protocol: row.protocol as Protocol,
  accountId: row.account_id,
  registeredAt: row.registered_at === null ? null : new Date(row.registered_at),
  registration: row.registration,
  deviceKey: row.device_key,
});

/** Modules per import transaction. */
const CHUNK = 200;
const CHUNK_ATTEMPTS = 5;
/** New modules from which an import has PostgreSQL's statistics taken again (see `analyzeImported`). */
const ANALYZE_AFTER = 100;

/** The operator's catalog and each module's registration to an account. */
export class ModulesRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly capabilities?: Pick<Capabilities, 'dialect'>,
  ) {}

  /**
   * Inserts or updates every entry, in serial order, in chunks of `CHUNK` modules that each commit
   * on their own, yielding to the event loop between chunks: a large import never holds thousands of
   * module locks against ingestion nor one long transaction. Not atomic: if it stops half-way, the
   * chunks written stay, and importing the file again completes it (every write is an upsert).
   * `onProgress` is told after each chunk.
   */
  async importCatalog(entries: CatalogEntry[], onProgress?: (done: number, total: number) => void): Promise<{ created: number; updated: number }> {
    const sorted = [...entries].sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));
    let created = 0;
    for (let start = 0; start < sorted.length; start += CHUNK) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      const chunk = sorted.slice(start, start + CHUNK);
      created += await this.importCatalogChunk(chunk);
      onProgress?.(start + chunk.length, sorted.length);
    }
    if (created >= ANALYZE_AFTER) await this.analyzeImported();
    return { created, updated: sorted.length - created };
  }

  /**
   * PostgreSQL: the tables' statistics taken again once an import added many modules, as after any
   * bulk load. Every pooled connection keeps one plan per ingest statement, made from the statistics
   * of its time: made while the tables were near empty, they scan a whole table for each round of
   * uplinks (measured: 1,000 modules read some 130 times a second under load) until autovacuum
   * analyzes it, up to a minute later. ANALYZE also has those plans made again. Below a hundred new
   * modules the tables are a few pages whatever the plan, and autovacuum's own threshold (50 rows
   * and a tenth of the table) takes over.
   */
  private async analyzeImported(): Promise<void> {
    if (this.capabilities?.dialect !== 'postgres') return;
    await sql`ANALYZE modules, devices`.execute(this.db);
  }

  /**
   * Inserts or updates one chunk of the catalog and gives each module its own device (index 0), in
   * one short transaction; returns how many modules were new. Rows are written in the order given:
   * callers sort by serial, the order ingestion locks modules in, so the two never deadlock. A
   * deadlock or lock timeout (some other writer) rolls the chunk back and it is tried again.
   */
  async importCatalogChunk(entries: CatalogEntry[]): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute((trx) => writeChunk(trx, entries));
      } catch (error) {
        if (attempt >= CHUNK_ATTEMPTS || !isLockConflict(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt * Math.random()));
      }
    }
  }

  /** Catalog page in serial order, after `after` (keyset). */
  async listCatalog(limit: number, after?: string): Promise<CatalogModule[]> {
    let query = this.db.selectFrom('modules').selectAll().orderBy('serial').limit(limit);
    if (after !== undefined) query = query.where('serial', '>', after);
    return (await query.execute()).map(toModule);
  }

  async bySerial(serial: string): Promise<CatalogModule | undefined> {
    const row = await this.db.selectFrom('modules').selectAll().where('serial', '=', serial.toUpperCase()).executeTakeFirst();
    return row && toModule(row);
  }

  async bySerials(serials: string[]): Promise<CatalogModule[]> {
    if (serials.length === 0) return [];
    const rows = await this.db.selectFrom('modules').selectAll().where('serial', 'in', serials).execute();
    return rows.map(toModule);
  }

  /**
   * Claims for the account each of `serials` that nobody holds, as a new registration that starts
   * empty, in one transaction; returns the serials claimed (one another registration won is left
   * out). The module rows are changed first, locked in serial order as ingestion locks them: their
   * locks order this against the modules' uplinks. Uplink counters start over; `last_when_ms`
   * stays, so `when` keeps increasing across registrations.
   */
  async register(serials: string[], accountId: number): Promise<Set<string>> {
    const sorted = [...new Set(serials)].sort();
    if (sorted.length === 0) return new Set();
    return this.db.transaction().execute(async (trx) => {
      if (this.capabilities?.dialect === 'postgres') {
        await trx.selectFrom('modules').select('serial').where('serial', 'in', sorted).orderBy('serial').forUpdate().execute();
      }
      const claimed = await trx
        .updateTable('modules')
        .set((eb) => ({ account_id: accountId, registered_at: Date.now(), registration: eb('registration', '+', 1), device_key: null, last_cpt: null, last_seq: null, last_time_s: null, watch_period_s: null }))
        .where('serial', 'in', sorted)
        .where('account_id', 'is', null)
        .returning('serial')
        .execute();
      const serialsClaimed = claimed.map((row) => row.serial);
      await resetRegistration(trx, serialsClaimed);
      return new Set(serialsClaimed);
    });
  }

  /**
   * Releases the module: detached from every app, the registration's data erased, the printed key
   * in force again, and every device token issued so far ended.
   */
  async unregister(serial: string, accountId: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const released = await trx
        .updateTable('modules')
        .set((eb) => ({ account_id: null, registered_at: null, registration: eb('registration', '+', 1), device_key: null, last_cpt: null, last_seq: null, last_time_s: null, watch_period_s: null }))
        .where('serial', '=', serial)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (released.numUpdatedRows === 0n) return;
      await trx.deleteFrom('app_modules').where('module_serial', '=', serial).execute();
      await resetRegistration(trx, [serial]);
    });
  }

  /** Sets the device key of a module the account holds; false when it does not hold it. */
  async setDeviceKey(serial: string, accountId: number, key: string): Promise<boolean> {
    const result = await this.db
      .updateTable('modules')
      .set({ device_key: key })
      .where('serial', '=', serial)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listByAccount(accountId: number): Promise<ModuleListItem[]> {
    return this.db
      .selectFrom('modules')
      .innerJoin('devices', (join) => join.onRef('devices.module_serial', '=', 'modules.serial').on('devices.idx', '=', 0))
      .select(['devices.id as id', 'modules.serial as serial'])
      .where('modules.account_id', '=', accountId)
      .orderBy('modules.serial')
      .execute();
  }

  async pacsByAccount(accountId: number): Promise<{ serial: string; pac: string }[]> {
    return this.db
      .selectFrom('modules')
      .select(['serial', 'pac'])
      .where('account_id', '=', accountId)
      .orderBy('serial')
      .execute();
  }

  async setProtocol(serial: string, protocol: Protocol): Promise<void> {
    await this.db.updateTable('modules').set({ protocol }).where('serial', '=', serial).execute();
  }
}
