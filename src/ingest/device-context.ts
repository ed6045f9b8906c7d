import { deviceWire } from '../wire/device.js';
import { toDevice } from '../storage/devices-repository.js';
import type { DeviceRow } from '../storage/schema.js';

/** Formats an epoch-ms date the way the wire shows device dates (the HTTP presenters' legacy form). */
export type DateText = (ms: number) => string;

/**
 * A message's `ctxt`: the device's fields right after the frame, as the device object shows them
 * (spec/api.md) — `id`, `serial` and `index` included — without `category` and `uid`, which the
 * spec leaves out, and `bidirval`, which is not a device field of the spec's table.
 * Stored with the message, so history shows the state at reception, not today's.
 */
export function deviceContext(device: DeviceRow, dateText: DateText) {
  const { uid: _uid, category: _category, bidirval: _bidirval, ...ctxt } = deviceWire(
    toDevice(device),
    (date) => dateText(date.getTime()),
  );
  return ctxt;
}
