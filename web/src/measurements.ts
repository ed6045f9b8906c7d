// Decoded values for people: a label and a unit apart from the wire key ("Voltage 3.30 V", not
// "voltage_mv 3.30 V"). Keys are those of the decode structure's `custom` (spec section 9.1b).

interface Measurement {
  label: string;
  unit?: string;
  /** wire value × scale = shown value (voltage_mv → V) */
  scale?: number;
  digits?: number;
}

const MEASUREMENTS: Record<string, Measurement> = {
  voltage_mv: { label: 'Voltage', unit: 'V', scale: 1 / 1000, digits: 2 },
  temperature_c: { label: 'Temperature', unit: '°C' },
  interval_h: { label: 'Keep-alive interval', unit: 'h' },
  level: { label: 'Battery level' },
  child_index: { label: 'Child' },
  port: { label: 'Port' },
  pin: { label: 'Pin' },
  reset_cause: { label: 'Reset cause' },
  custom_cause: { label: 'Custom cause' },
  version: { label: 'Protocol version' },
  software_release: { label: 'Software release' },
  device_class: { label: 'Device class' },
  sigfox_id: { label: 'Sigfox ID' },
  custom_value: { label: 'Custom value' },
  slot: { label: 'Slot' },
  phone: { label: 'Phone number' },
  pin_code: { label: 'PIN code' },
  latitude: { label: 'Latitude', unit: '°', digits: 5 },
  longitude: { label: 'Longitude', unit: '°', digits: 5 },
  altitude_m: { label: 'Altitude', unit: 'm' },
  satellites: { label: 'Satellites' },
  hdop_class: { label: 'HDOP class' },
  month: { label: 'Month' },
  day: { label: 'Day' },
  hour: { label: 'Hour' },
  minute: { label: 'Minute' },
  fix: { label: 'GPS fix' },
  text: { label: 'Text' },
  data: { label: 'Data' },
};

/** "voltage_mv" → "Voltage"; an unknown key reads as words ("battery_state" → "Battery state"). */
export function measurementLabel(key: string): string {
  const known = MEASUREMENTS[key];
  if (known) return known.label;
  const words = key.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The unit a measurement is shown in ('' when none). */
export const measurementUnit = (key: string): string => MEASUREMENTS[key]?.unit ?? '';

/** The value in its shown unit: voltage_mv 3300 → 3.3 (V). */
export function measurementNumber(key: string, value: number): number {
  return value * (MEASUREMENTS[key]?.scale ?? 1);
}

/** The value with its unit: voltage_mv 3300 → "3.30 V"; yes/no for booleans. */
export function measurementText(key: string, value: unknown): string {
  const known = MEASUREMENTS[key];
  if (typeof value === 'number') {
    const shown = measurementNumber(key, value);
    const text = known?.digits !== undefined ? shown.toFixed(known.digits) : String(shown);
    return known?.unit ? `${text} ${known.unit}` : text;
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The decoded values of a message as label/text pairs: its `extra` without the frame itself and the
 * network time (the table shows the time already).
 */
export function measurements(extra: Record<string, unknown>): { key: string; label: string; text: string }[] {
  return Object.entries(extra)
    .filter(([key]) => key !== 'message' && key !== 'time')
    .map(([key, value]) => ({ key, label: measurementLabel(key), text: measurementText(key, value) }));
}
