import type { Child, Device } from '../domain/types.js';
import { humanReadable } from './human-readable.js';
import { legacyDate } from './legacy-date.js';
import { decimal } from './message.js';

/**
 * The device object as the wire shows it (spec/api.md, device fields), with dates written by
 * `dateText`. The device operations answer it; ingestion stores it, less `category` and `uid`, as
 * a message's `ctxt`. Built here, below both, so neither imports the other.
 */
export function deviceWire(device: Device, dateText: (date: Date) => string) {
  return {
    id: String(device.id),
    serial: device.serial,
    index: device.index,
    ...(device.uid !== null && { uid: device.uid }),
    ...(device.category !== null && { category: device.category }),
    active: device.active,
    watched: device.watched,
    alerts: device.alerts,
    alerts_ack: device.alertsAck,
    losts: device.losts,
    msgs: device.msgs,
    ...(device.firstseen && { firstseen: dateText(device.firstseen) }),
    ...(device.lastseen && { lastseen: dateText(device.lastseen) }),
    battery: device.battery,
    level: device.level,
    network: device.network,
    tamper: device.tamper,
    temp: device.temp,
    status: device.status,
    type: device.type,
    ...(device.bidirval !== null && { bidirval: device.bidirval }),
  };
}

/**
 * A child as the children operation shows it: the device object, and the fields the spec's
 * return-value table lists for it from its newest message — `when` (reception time, ms), `raw` (the
 * frame), `hr` (the frame in words), `lvl` and `station`. A child never heard from has none of them.
 */
export function childWire(child: Child, dateText: (date: Date) => string) {
  const last = child.lastMessage;
  return {
    ...deviceWire(child, dateText),
    ...(last && { when: last.when, raw: last.frame, hr: humanReadable(last.code, last.custom), lvl: decimal(last.lvl), station: last.station }),
  };
}

/** `childWire` with dates in the configured time zone. */
export const presentChild = (child: Child, timeZone: string) => childWire(child, (date) => legacyDate(date, timeZone));

/** `deviceWire` with dates in the configured time zone. */
export const presentDevice = (device: Device, timeZone: string) => deviceWire(device, (date) => legacyDate(date, timeZone));
