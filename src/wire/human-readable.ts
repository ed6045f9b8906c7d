/** Units of the decoded values, by the suffix of their name; millivolts are shown in volts. */
const UNITS: [suffix: string, unit: string, scale: number][] = [
  ['_mv', 'V', 1000],
  ['_c', '°C', 1],
  ['_h', 'h', 1],
  ['_s', 's', 1],
  ['_m', 'm', 1],
];

function value(name: string, raw: unknown): string {
  const unit = UNITS.find(([suffix]) => name.endsWith(suffix));
  const label = (unit ? name.slice(0, -unit[0].length) : name).replaceAll('_', ' ');
  if (unit && typeof raw === 'number') return `${label} ${Number((raw / unit[2]).toFixed(3))} ${unit[1]}`;
  return `${label} ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`;
}

/**
 * A decoded message in words, as the children operation's `hr` shows it: the frame's code and its
 * values with units, e.g. `event temp low: temperature -5 °C` or
 * `keepalive voltage temp: interval 24 h, voltage 3.3 V, temperature 21.5 °C`.
 */
export function humanReadable(code: string, custom: Record<string, unknown>): string {
  const values = Object.entries(custom).map(([name, raw]) => value(name, raw));
  const what = code.replaceAll('_', ' ');
  return values.length === 0 ? what : `${what}: ${values.join(', ')}`;
}
