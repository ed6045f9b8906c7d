// One chunk of a catalog import, written in one transaction (see ModulesRepository.importCatalog).
import type { Kysely } from 'kysely';
import type { Protocol } from '../protocol/udm/index.js';
import type { Database } from './schema.js';

export interface CatalogEntry {
  serial: string;
  key: string;
  pac: string;
  protocol?: Protocol;
}

/** PostgreSQL's deadlock_detected, lock_not_available (lock_timeout) and serialization_failure. */
export const isLockConflict = (error: unknown) => ['40P01', '55P03', '40001'].includes((error as { code?: string }).code ?? '');

/** Inserts or updates the chunk's modules and gives each its own device (index 0); how many were new. */
export async function writeChunk(trx: Kysely<Database>, batch: CatalogEntry[]): Promise<number> {
  const existing = await trx
    .selectFrom('modules')
    .select('serial')
    .where('serial', 'in', batch.map((entry) => entry.serial))
    .execute();
  const now = Date.now();
  // A line without a protocol keeps the one the module already has (REGISTER frames may have set it).
  for (const withProtocol of [true, false]) {
    const group = batch.filter((e) => (e.protocol !== undefined) === withProtocol);
    if (group.length === 0) continue;
    await trx
      .insertInto('modules')
      .values(group.map((e) => ({ serial: e.serial, key: e.key, pac: e.pac, protocol: e.protocol ?? 'UDM23', imported_at: now })))
      .onConflict((oc) =>
        oc.column('serial').doUpdateSet((eb) => ({
          key: eb.ref('excluded.key'),
          pac: eb.ref('excluded.pac'),
          ...(withProtocol && { protocol: eb.ref('excluded.protocol') }),
        })),
      )
      .execute();
  }
  await trx
    .insertInto('devices')
    .values(batch.map((e) => ({ module_serial: e.serial, idx: 0, serial: e.serial })))
    .onConflict((oc) => oc.columns(['module_serial', 'idx']).doNothing())
    .execute();
  return batch.length - existing.length;
}
