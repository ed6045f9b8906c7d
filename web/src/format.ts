import { measurementText } from './measurements';

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

/** A decoded value with its unit: voltage_mv 3300 → "3.30 V" (see measurements.ts). */
export const formatValue = measurementText;

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
