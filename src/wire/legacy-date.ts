import { LRUCache } from 'lru-cache';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
      hour12: true,
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/**
 * The texts of the seconds formatted lately: ingest writes a handful of dates per message, most of
 * them the uplink's own second, and ICU's formatting costs more than the rest of the device's wire form.
 */
const recent = new LRUCache<string, string>({ max: 4096 });

/**
 * The original service's date form, `Apr 9, 2017 3:04:05 PM`: en-US, no comma after the year (the
 * Android client's parser rejects one), in the configured time zone.
 */
export function legacyDate(date: Date, timeZone: string): string {
  const key = `${timeZone} ${Math.floor(date.getTime() / 1000)}`;
  let text = recent.get(key);
  if (text === undefined) {
    const part: Record<string, string> = {};
    for (const { type, value } of formatter(timeZone).formatToParts(date)) part[type] = value;
    text = `${part.month} ${part.day}, ${part.year} ${part.hour}:${part.minute}:${part.second} ${part.dayPeriod}`;
    recent.set(key, text);
  }
  return text;
}
