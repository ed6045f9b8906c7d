import { Type } from 'typebox';
import type { MessageRow } from '../../storage/schema.js';
import type { RawMessage } from '../../storage/raw-messages-repository.js';

/** Numbers the original service sent as decimal strings (lvl, snr, rssi). */
export const decimal = (value: number | null): string => (value === null ? '0' : String(value));

const Json = Type.Object({}, { additionalProperties: true });

export const MessageSchema = Type.Object({
  when: Type.Integer({ description: 'reception time, epoch ms' }),
  lvl: Type.String({ description: 'signal level (RSSI, dBm) as a decimal string' }),
  station: Type.String(),
  type: Type.String({ description: 'event:templow, keepalive:voltagetemp, …' }),
  device: Type.String({ description: 'serial of the device the message concerns' }),
  extra: Type.Object(
    { message: Type.String({ description: 'the frame, hex' }) },
    { additionalProperties: true, description: 'the frame, and the values decoded from it (voltage_mv, temperature_c, …)' },
  ),
  contrib: Json,
  ctxt: Json,
  received: Type.Integer({ description: 'same as when, for older clients' }),
  payload: Type.String({ description: 'the frame, hex, for older clients' }),
});

/** The columns a message's wire form is made of (history reads only these). */
export type PresentableMessage = Pick<MessageRow, 'when_ms' | 'lvl' | 'station' | 'type' | 'frame' | 'custom' | 'contrib' | 'ctxt'>;

/** A stored message as history, recents and callbacks show it; `custom` is the decoded values' JSON. */
export function presentMessage(row: PresentableMessage, deviceSerial: string) {
  return {
    when: row.when_ms,
    lvl: decimal(row.lvl),
    station: row.station,
    type: row.type,
    device: deviceSerial,
    extra: { message: row.frame, ...(JSON.parse(row.custom) as Record<string, unknown>) },
    contrib: JSON.parse(row.contrib) as Record<string, unknown>,
    ctxt: JSON.parse(row.ctxt) as Record<string, unknown>,
    received: row.when_ms,
    payload: row.frame,
  };
}

export const RawMessageSchema = Type.Object({
  device: Type.String(),
  time: Type.Integer({ description: 'epoch seconds' }),
  data: Type.String(),
  payload: Type.String({ description: 'same as data, for the Android client' }),
  snr: Type.String({ description: 'best SNR of every base station so far' }),
  seqNumber: Type.Optional(Type.Integer()),
  rinfos: Type.Array(Type.Object({ tap: Type.String(), snr: Type.String(), rssi: Type.String() })),
});

export function presentRawMessage(raw: RawMessage) {
  return {
    device: raw.module_serial,
    time: raw.time_s,
    data: raw.data,
    payload: raw.data,
    snr: decimal(raw.snr),
    ...(raw.seq_number !== null && { seqNumber: raw.seq_number }),
    rinfos: raw.rinfos.map((r) => ({ tap: r.tap, snr: decimal(r.snr), rssi: decimal(r.rssi) })),
  };
}

/** The inside of a stored JSON object's text, ready to follow other members: `{"a":1}` → `,"a":1`. */
function members(json: string): string {
  const inner = json.trim().slice(1, -1).trim();
  return inner === '' ? '' : `,${inner}`;
}

/**
 * A page of messages in `presentMessage`'s wire form, as JSON text. The stored JSON columns are
 * spliced in as they are instead of parsed and serialized again, which was most of a history
 * request's cost; a property test holds the two forms equal.
 */
export function messagesJson(rows: readonly (PresentableMessage & { device_serial: string })[]): string {
  const parts = rows.map((row) => {
    const frame = JSON.stringify(row.frame);
    return (
      `{"when":${row.when_ms},"lvl":${JSON.stringify(decimal(row.lvl))},"station":${JSON.stringify(row.station)},` +
      `"type":${JSON.stringify(row.type)},"device":${JSON.stringify(row.device_serial)},` +
      `"extra":{"message":${frame}${members(row.custom)}},"contrib":${row.contrib.trim()},"ctxt":${row.ctxt.trim()},` +
      `"received":${row.when_ms},"payload":${frame}}`
    );
  });
  return `[${parts.join(',')}]`;
}
