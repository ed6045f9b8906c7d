import type { DeviceRow } from '../storage/schema.js';

/** Formats an epoch-ms date the way the wire shows device dates (the HTTP presenters' legacy form). */
export type DateText = (ms: number) => string;

/**
 * A message's `ctxt`: the device's fields right after the frame, as the device object shows them
 * (spec/api.md), without `category` and `uid`. Stored with the message, so history shows the state
 * at reception, not today's.
 */
export function deviceContext(device: DeviceRow, dateText: DateText) {
  return {
    active: device.active === 1,
    watched: device.watched === 1,
    alerts: device.alerts,
    alerts_ack: device.alerts_ack,
    losts: device.losts,
    msgs: device.msgs,
    ...(device.firstseen !== null && { firstseen: dateText(device.firstseen) }),
    ...(device.lastseen !== null && { lastseen: dateText(device.lastseen) }),
    battery: device.battery,
    level: device.level,
    network: device.network,
    tamper: device.tamper,
    temp: device.temp,
    status: device.status,
    type: device.type,
  };
}
