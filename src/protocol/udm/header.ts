// The 2-byte header, bit-identical in every UDM version (section 1.2):
//   byte 0 = retry(1) | stamp(3) | cpt(4)      byte 1 = entry_id(4) | frame type(4)
import { broken, type Note } from './codec.js';
import type { FrameHeader, FrameTypeName, Protocol } from './frame.js';

/** Frame type names indexed by the type nibble (section 2); 8..15 do not exist. */
export const FRAME_TYPES: readonly FrameTypeName[] = Object.freeze([
  'event', 'data', 'register', 'keepalive', 'raw', 'service', 'geoloc', 'ping',
] as const);

/** The `frame_type` string of the decode answer. */
export function frameTypeString(type: FrameTypeName): string {
  return `srv_frm_${type}`;
}

/** Reads b[0..1]; returns the header, or the reason the type nibble is invalid for `protocol`. */
export function decodeHeader(b: Uint8Array, protocol: Protocol, note?: Note): FrameHeader | string {
  const b0 = b[0];
  const b1 = b[1];
  const typeCode = b1 & 0x0f;
  note?.('retry', 0, 1, b0 & 0x80 ? 'repetition of a frame already sent' : 'first emission');
  note?.('stamp', 1, 3, `per-type sequence number ${(b0 >> 4) & 7}`);
  note?.('cpt', 4, 4, `global transmission counter ${b0 & 0x0f}`);
  note?.('entry_id', 8, 4, b1 >> 4 ? `child ${b1 >> 4} behind the gateway` : 'the module itself');
  const type = FRAME_TYPES[typeCode];
  if (type === undefined) {
    note?.('frame type', 12, 4, `${typeCode} = undefined`);
    return broken(2, `frame type ${typeCode} does not exist`);
  }
  note?.('frame type', 12, 4, `${typeCode} = ${frameTypeString(type)}`);
  if (type === 'ping' && protocol === 'UDM22') return broken(2, 'frame type 7 (PING) does not exist in UDM22');
  return { retry: b0 >= 0x80, stamp: (b0 >> 4) & 7, cpt: b0 & 0x0f, entryId: b1 >> 4, type };
}

/** Appends the two header bytes; throws RangeError on out-of-range counters. */
export function encodeHeader(h: FrameHeader, out: number[]): void {
  const typeCode = FRAME_TYPES.indexOf(h.type);
  const ok = (v: unknown, max: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;
  if (typeCode < 0) throw new RangeError(`header.type ${String(h.type)} is not a frame type`);
  if (!ok(h.stamp, 7) || !ok(h.cpt, 15) || !ok(h.entryId, 15) || typeof h.retry !== 'boolean') {
    throw new RangeError('header: retry must be a boolean, stamp 0..7, cpt 0..15, entryId 0..15');
  }
  out.push((h.retry ? 0x80 : 0) | (h.stamp << 4) | h.cpt, (h.entryId << 4) | typeCode);
}
