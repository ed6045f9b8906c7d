import { notFound } from '../../domain/errors.js';
import type { IngestModule, IngestStore } from '../ingest-store.js';
import type { Uplink } from '../uplink.js';

/**
 * Step 1: the catalog module the uplink comes from, case-insensitively, locked until commit so a
 * module's uplinks are applied one at a time even across processes. Modules not registered to any
 * account are stored too: their own device token reads them. This is the only step that rejects an
 * uplink, and it does so before anything is written.
 */
export async function resolveModule(store: IngestStore, uplink: Uplink): Promise<IngestModule> {
  const serial = uplink.device.toUpperCase();
  const module = await store.lockModule(serial);
  if (!module) throw notFound(`device ${serial} is not in the module catalog; nothing was stored`);
  return module;
}
