// Section 10: which device status field a frame sets. [INFERRED] in the spec; snsr applies it.
import type { Frame } from './frame.js';

export type StatusField = 'battery' | 'level' | 'network' | 'tamper' | 'temp';
export type StatusValue = 'ON' | 'OFF' | 'LOW' | 'HIGH' | 'OK';

export interface StatusUpdate {
  /** The device concerned, relative to the emitting module: 0 = the module, 1..15 = its child. */
  entryId: number;
  field: StatusField;
  value: StatusValue;
}

/** Event code → field and value; `child` = the event is about the child named in its data byte. */
const EVENT_STATUS: Readonly<Record<string, readonly [StatusField, StatusValue, 'child'?]>> = {
  event_battery_low: ['battery', 'OFF'],
  event_battery_ok: ['battery', 'ON'],
  event_connection_lost: ['network', 'OFF', 'child'],
  event_connection_ok: ['network', 'ON', 'child'],
  event_rssi_low: ['level', 'OFF', 'child'],
  event_rssi_ok: ['level', 'ON', 'child'],
  event_temp_low: ['temp', 'LOW'],
  event_temp_high: ['temp', 'HIGH'],
  event_temp_ok: ['temp', 'OK'],
  event_switch_on: ['tamper', 'ON'],
  event_switch_off: ['tamper', 'OFF'],
};

/** The status change a decoded frame implies, if any. A keep-alive shows its sender is on the network. */
export function statusUpdate(frame: Frame): StatusUpdate | undefined {
  if (frame.header.type === 'keepalive') return { entryId: frame.header.entryId, field: 'network', value: 'ON' };
  const rule = EVENT_STATUS[frame.code];
  if (rule === undefined) return undefined;
  const [field, value, about] = rule;
  return { entryId: about === 'child' ? (frame.custom.child_index ?? 0) : frame.header.entryId, field, value };
}
