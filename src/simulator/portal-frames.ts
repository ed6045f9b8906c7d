import type { CustomValues, Frame, FrameTypeName, Protocol } from '../protocol/udm/index.js';

/** The simulation types of the original portal's simulator, in its order. */
export const SIMULATION_TYPES = [
  'RANDOM', 'BATTERY_LOW', 'BATTERY_OK', 'CONNECTION_LOST', 'CONNECTION_OK', 'OPENINGDETECTOR_CLOSE',
  'OPENINGDETECTOR_OPEN', 'BUTTON_OFF', 'BUTTON_ON', 'ACTIVITY_CHANGING', 'TEMPERATURE_CHANGING',
  'PRESSURE_CHANGING', 'LOCATION_CHANGING', 'BATTERY_CHANGING', 'EMERGENCY_CALL', 'BEACONDETECTION_LOST',
  'BEACONDETECTION_OK', 'INDUCTIVECARRIERCHARGER_LOW', 'INDUCTIVECARRIERCHARGER_OK', 'DEVICE_DISABLE', 'DEVICE_ENABLE',
] as const;
export type SimulationType = (typeof SIMULATION_TYPES)[number];

export interface SimulationContext {
  protocol: Protocol;
  latitude: number;
  longitude: number;
  /** 0 ≤ r < 1, for RANDOM and the values of the *_CHANGING types. */
  random: () => number;
}

type Payload = { type: FrameTypeName; code: string; custom: CustomValues };
const event = (code: string, custom: CustomValues = {}): Payload => ({ type: 'event', code: `event_${code}`, custom });

/** A keep-alive with these measurements, in the module's protocol (UDM22 has one keep-alive form). */
const keepAlive = (protocol: Protocol, voltage_mv: number, temperature_c: number): Payload => ({
  type: 'keepalive',
  code: protocol === 'UDM22' ? 'keepalive' : 'keepalive_voltage_temp',
  custom: { interval_h: 24, voltage_mv, temperature_c },
});

/**
 * The UDM frame each type stands for. Opening detectors and buttons are switches (ports A and B),
 * beacons are RSSI events of child 1, measurements are keep-alives, a location is a GPS data frame.
 * Types UDM has no frame for are custom events 1 to 6 (a pressure carries its hPa in two bytes).
 */
const PAYLOADS: Record<Exclude<SimulationType, 'RANDOM'>, (c: SimulationContext) => Payload> = {
  BATTERY_LOW: (c) => event('battery_low', c.protocol === 'UDM23' ? { voltage_mv: 3000 } : {}),
  BATTERY_OK: (c) => event('battery_ok', c.protocol === 'UDM23' ? { voltage_mv: 3300 } : { level: 200 }),
  CONNECTION_LOST: () => event('connection_lost', { child_index: 1 }),
  CONNECTION_OK: () => event('connection_ok', { child_index: 1 }),
  OPENINGDETECTOR_CLOSE: () => event('switch_off', { port: 'A', pin: 0 }),
  OPENINGDETECTOR_OPEN: () => event('switch_on', { port: 'A', pin: 0 }),
  BUTTON_OFF: () => event('switch_off', { port: 'B', pin: 0 }),
  BUTTON_ON: () => event('switch_on', { port: 'B', pin: 0 }),
  ACTIVITY_CHANGING: () => event('accelero_move'),
  // Whole degrees and 10 mV steps: values both protocols carry exactly.
  TEMPERATURE_CHANGING: (c) => keepAlive(c.protocol, 3300, Math.floor(-10 + c.random() * 50)),
  BATTERY_CHANGING: (c) => keepAlive(c.protocol, 3000 + 10 * Math.floor(c.random() * 60), 20),
  LOCATION_CHANGING: (c) => ({ type: 'data', code: 'data_gps', custom: { fix: true, latitude: c.latitude, longitude: c.longitude } }),
  PRESSURE_CHANGING: (c) => event('custom_1', { data: (980 + Math.floor(c.random() * 60)).toString(16).toUpperCase().padStart(4, '0') }),
  EMERGENCY_CALL: () => event('custom_2'),
  BEACONDETECTION_LOST: () => event('rssi_low', { child_index: 1 }),
  BEACONDETECTION_OK: () => event('rssi_ok', { child_index: 1 }),
  INDUCTIVECARRIERCHARGER_LOW: () => event('custom_3'),
  INDUCTIVECARRIERCHARGER_OK: () => event('custom_4'),
  DEVICE_DISABLE: () => event('custom_5'),
  DEVICE_ENABLE: () => event('custom_6'),
};

/** The type named in any case, or undefined. */
export function simulationType(name: string): SimulationType | undefined {
  const upper = name.trim().toUpperCase();
  return (SIMULATION_TYPES as readonly string[]).includes(upper) ? (upper as SimulationType) : undefined;
}

/**
 * The frame a module of the protocol sends for the simulation type (RANDOM picks one of the others),
 * with the module's next counters: `count` is how many frames were simulated for it before.
 */
export function portalFrame(type: SimulationType, context: SimulationContext, count: number): Frame {
  const concrete = type === 'RANDOM' ? SIMULATION_TYPES[1 + Math.floor(context.random() * (SIMULATION_TYPES.length - 1))]! : type;
  const payload = PAYLOADS[concrete as Exclude<SimulationType, 'RANDOM'>](context);
  return {
    header: { retry: false, stamp: count % 8, cpt: count % 16, entryId: 0, type: payload.type },
    code: payload.code,
    custom: payload.custom,
  };
}
