import { statusUpdate } from '../../protocol/udm/index.js';
import type { Frame, StatusUpdate } from '../../protocol/udm/index.js';
import type { DeviceRow } from '../../storage/schema.js';
import type { IngestModule, IngestStore } from '../ingest-store.js';

/** Highest child index behind a gateway: entry ids are 4 bits, 0 being the module itself. */
export const MAX_CHILD = 15;

export interface Concerned {
  device: DeviceRow;
  /** The section 10 status change this frame makes to that device, if any. */
  update?: StatusUpdate;
}

/**
 * Which entry a frame concerns: its header's entry (0 = the module, N = child N), except that the
 * gateway's own connection and RSSI events (entry 0) concern the child their data byte names.
 */
export function concernedEntry(frame: Frame, update: StatusUpdate | undefined): { entry: number; applies: boolean } {
  const entry = frame.header.entryId;
  if (entry !== 0 || update === undefined || update.entryId === 0) return { entry, applies: update !== undefined };
  // A child index beyond the gateway's table names no device: the event stays the module's, without effect.
  return update.entryId <= MAX_CHILD ? { entry: update.entryId, applies: true } : { entry: 0, applies: false };
}

/** Step 6: the device the frame concerns; a child `<serial>/<N>` is created when first heard of. */
export async function resolveDevice(store: IngestStore, module: IngestModule, frame: Frame): Promise<Concerned> {
  const update = statusUpdate(frame);
  const { entry, applies } = concernedEntry(frame, update);
  const device = entry === 0 ? module.device : await store.childDevice(module.serial, entry);
  return { device, ...(applies && update && { update }) };
}
