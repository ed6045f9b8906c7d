import { Type } from 'typebox';
import type { Device } from '../../domain/types.js';
import { legacyDate } from './legacy-date.js';

export const DeviceSchema = Type.Object({
  id: Type.String(),
  serial: Type.String({ description: '<module serial>, or <module serial>/<index> behind a gateway' }),
  index: Type.Integer(),
  uid: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  active: Type.Boolean(),
  watched: Type.Boolean(),
  alerts: Type.Integer(),
  alerts_ack: Type.Integer(),
  losts: Type.Integer(),
  msgs: Type.Integer(),
  firstseen: Type.Optional(Type.String()),
  lastseen: Type.Optional(Type.String()),
  battery: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  level: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  network: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  tamper: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  temp: Type.String({ enum: ['LOW', 'OK', 'HIGH', 'UNKNOWN'] }),
  status: Type.String(),
  type: Type.String(),
  bidirval: Type.Optional(Type.String()),
});

export function presentDevice(device: Device, timeZone: string) {
  return presentDeviceWith(device, (date) => legacyDate(date, timeZone));
}

/** The device object with dates written by `dateText`: ingestion stores it, less identity, as `ctxt`. */
export function presentDeviceWith(device: Device, dateText: (date: Date) => string) {
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
