// Display helpers. Times from the API are epoch milliseconds; they are shown in the browser's zone.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '—' : dateTime.format(new Date(ms));
}

/** "3 minutes ago", "in 10 seconds". */
export function formatRelative(ms: number, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of steps) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(seconds, 'second');
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Decoded values with units for people: voltage_mv 3300 → "3.30 V". */
export function formatValue(name: string, value: unknown): string {
  if (typeof value === 'number') {
    if (name === 'voltage_mv') return `${(value / 1000).toFixed(2)} V`;
    if (name === 'temperature_c') return `${value} °C`;
    if (name === 'interval_h') return `${value} h`;
    if (name === 'altitude_m') return `${value} m`;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The decoded values of a message: its `extra` without the frame itself. */
export function decodedValues(extra: Record<string, unknown>): [string, unknown][] {
  return Object.entries(extra).filter(([name]) => name !== 'message');
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
