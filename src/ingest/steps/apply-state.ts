import type { Frame } from '../../protocol/udm/index.js';
import type { DeviceRow } from '../../storage/schema.js';
import { announcedPeriod } from '../../monitoring/alarms.js';
import type { DeviceChanges, IngestModule, IngestStore } from '../ingest-store.js';
import type { Concerned } from './resolve-device.js';

/** Device fields a frame provides: the message's `contrib`. */
export type Contribution = NonNullable<DeviceChanges['fields']>;

/**
 * The fields a frame sets on the device it concerns: its section 10 status field, and for a REGISTER
 * the registering device's Sigfox id (`uid`) and device class (`category`).
 */
export function contribution(frame: Frame, concerned: Concerned): Contribution {
  const fields: Contribution = {};
  if (concerned.update) Object.assign(fields, { [concerned.update.field]: concerned.update.value });
  if (frame.code === 'register' && frame.custom.sigfox_id !== undefined && frame.custom.device_class !== undefined) {
    fields.uid = frame.custom.sigfox_id;
    fields.category = String(frame.custom.device_class);
  }
  return fields;
}

/**
 * Step 7: device state, applied as each message arrives. The concerned device gets the fields and
 * one more message; the device that was heard (the concerned one, unless the gateway reports on a
 * child) gets `firstseen`/`lastseen` and the keep-alive period its frame announces (the watchdog's
 * expected period), and the gateway gets `firstseen`/`lastseen` whenever it forwards for a child.
 * The module's own device also gets the uplinks found lost (`losts`), in the same statement.
 */
export async function applyDeviceState(
  store: IngestStore,
  module: IngestModule,
  frame: Frame,
  concerned: Concerned,
  whenMs: number,
  /** uplinks found lost on the module's own device (updateModule's `losts`) */
  losts?: number,
): Promise<{ device: DeviceRow; contrib: Contribution }> {
  const contrib = contribution(frame, concerned);
  const heard = concerned.device.idx === frame.header.entryId;
  const periodS = announcedPeriod(frame);
  const announced = periodS !== undefined ? { periodS } : {};
  const own = losts ? { losts } : {};
  const updates: [DeviceRow, DeviceChanges][] = [[concerned.device, { fields: contrib, message: true, ...(heard && { seenAt: whenMs, ...announced }) }]];
  if (concerned.device.idx !== 0) updates.push([module.device, { seenAt: whenMs, ...(!heard && announced), ...own }]);
  else Object.assign(updates[0][1], own);
  const [device] = await store.updateDevices(updates);
  return { device, contrib };
}
