import type { MessageRow } from '../storage/schema.js';

/** Numbers the original service sent as decimal strings (lvl, snr, rssi). */
export const decimal = (value: number | null): string => (value === null ? '0' : String(value));

/** The columns a message's wire form is made of (history reads only these). */
export type PresentableMessage = Pick<MessageRow, 'when_ms' | 'time_s' | 'lvl' | 'station' | 'type' | 'frame' | 'custom' | 'contrib' | 'ctxt'>;

/**
 * A stored message as history, recents and callbacks show it; `custom` is the decoded values' JSON.
 * `when` (and `received`) is snsr's reception time in ms; `extra.time` the network's time in s.
 */
export function presentMessage(row: PresentableMessage, deviceSerial: string) {
  return {
    when: row.when_ms,
    lvl: decimal(row.lvl),
    station: row.station,
    type: row.type,
    device: deviceSerial,
    extra: { message: row.frame, time: row.time_s, ...(JSON.parse(row.custom) as Record<string, unknown>) },
    contrib: JSON.parse(row.contrib) as Record<string, unknown>,
    ctxt: JSON.parse(row.ctxt) as Record<string, unknown>,
    received: row.when_ms,
    payload: row.frame,
  };
}

/** The inside of a stored JSON object's text, ready to follow other members: `{"a":1}` → `,"a":1`. */
function members(json: string): string {
  const inner = json.trim().slice(1, -1).trim();
  return inner === '' ? '' : `,${inner}`;
}

/**
 * One message in `presentMessage`'s wire form, as JSON text: what ingestion stores in `body`. The
 * stored JSON columns are spliced in as they are instead of parsed and serialized again; a property
 * test holds the two forms equal.
 */
export function messageBody(row: PresentableMessage, deviceSerial: string): string {
  const frame = JSON.stringify(row.frame);
  return (
    `{"when":${row.when_ms},"lvl":${JSON.stringify(decimal(row.lvl))},"station":${JSON.stringify(row.station)},` +
    `"type":${JSON.stringify(row.type)},"device":${JSON.stringify(deviceSerial)},` +
    `"extra":{"message":${frame},"time":${row.time_s}${members(row.custom)}},"contrib":${row.contrib.trim()},"ctxt":${row.ctxt.trim()},` +
    `"received":${row.when_ms},"payload":${frame}}`
  );
}

type RowWithSerial = PresentableMessage & { device_serial: string };

/** A page of messages in `presentMessage`'s wire form, as JSON text. */
export function messagesJson(rows: readonly RowWithSerial[]): string {
  return `[${rows.map((row) => messageBody(row, row.device_serial)).join(',')}]`;
}

/**
 * A page of stored messages as JSON text: their stored `body` texts as they are (an entry may hold
 * several, joined by commas), and messages stored without one (before ingestion wrote it) built
 * from their columns.
 */
export function storedPageJson(page: readonly (string | RowWithSerial)[]): string {
  let text = '[';
  for (let i = 0; i < page.length; i++) {
    const entry = page[i]!;
    text += (i === 0 ? '' : ',') + (typeof entry === 'string' ? entry : messageBody(entry, entry.device_serial));
  }
  return text + ']';
}
