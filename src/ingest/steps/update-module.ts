import type { Frame, Protocol } from '../../protocol/udm/index.js';
import type { IngestModule, IngestStore } from '../ingest-store.js';

/** Uplinks lost between two counters of the module's 4-bit emission counter (0 when unknown). */
export function lostBetween(lastCpt: number | null, cpt: number): number {
  return lastCpt === null ? 0 : (cpt - lastCpt - 1 + 16) % 16;
}

/**
 * Step 4: the module's counters. Every emission, repetitions included, advances the 4-bit `cpt`, so
 * a gap since the last one heard is that many uplinks lost, counted on the module's own device. An
 * uplink older than the newest frame of the module arrived late: it was counted lost when the gap
 * was seen, so it is found again, and it does not move the counter back. A REGISTER may switch the
 * protocol.
 */
export async function updateModule(store: IngestStore, module: IngestModule, frame: Frame, timeS: number, switchTo?: Protocol): Promise<void> {
  const newest = module.device.lastseen;
  const late = newest !== null && timeS * 1000 < newest;
  const lost = late ? -1 : lostBetween(module.lastCpt, frame.header.cpt);
  if (lost !== 0) await store.addLosts(module.device.id, lost);
  await store.updateModule(module.serial, { ...(!late && { lastCpt: frame.header.cpt }), ...(switchTo && { protocol: switchTo }) });
}
