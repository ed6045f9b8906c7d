// What every per-frame-type codec implements, plus the small validation helpers their encoders share.
import type { CustomValues, Frame, FrameHeader, Protocol } from './frame.js';
import { parseHex, toHex } from './hex.js';

/**
 * Explain's tracer: one call per field, bits counted MSB-first from the start of the frame. Codecs call
 * it as `note?.(…)`, so on the decode hot path the meaning strings are never even built.
 */
export type Note = (name: string, bitStart: number, bitLength: number, meaning: string) => void;

export interface FrameCodec {
  /** Reads the payload bytes `b[2..n)`; returns the frame or the reason it is invalid. */
  decode(b: Uint8Array, n: number, protocol: Protocol, header: FrameHeader, note?: Note): Frame | string;
  /** Appends the payload bytes to `out`; throws RangeError when the frame cannot be encoded. */
  encode(frame: Frame, protocol: Protocol, out: number[]): void;
}

/**
 * Reason text ending with the rule broken: a rule number of section 9.2, another section of the spec,
 * or 'snsr' for the few cases the spec leaves open and snsr decides (listed in decode.ts).
 */
export function broken(rule: number | 'snsr' | `section ${number}`, text: string): string {
  return `${text} (${typeof rule === 'number' ? `9.2 rule ${rule}` : rule === 'snsr' ? 'snsr policy' : rule})`;
}

export const hex2 = (v: number): string => `0x${v.toString(16).toUpperCase().padStart(2, '0')}`;

/** Decode side: b[from..n) as opaque `data` (absent when empty); returns n. */
export function opaqueTail(b: Uint8Array, from: number, n: number, custom: CustomValues, note?: Note): number {
  if (n > from) {
    custom.data = toHex(b, from, n);
    note?.('data', from * 8, (n - from) * 8, 'opaque bytes');
  }
  return n;
}

// ---- encode-side checks: an encoder accepts a frame only if decoding its bytes gives the frame back ----

/** Throws unless every defined key of `custom` belongs to this kind of frame. */
export function onlyKeys(frame: Frame, allowed: readonly (keyof CustomValues)[]): void {
  for (const [key, value] of Object.entries(frame.custom)) {
    if (value !== undefined && !(allowed as readonly string[]).includes(key)) {
      throw new RangeError(`${frame.code}: custom.${key} does not belong to this frame`);
    }
  }
}

export function has(custom: CustomValues, key: keyof CustomValues): boolean {
  return custom[key] !== undefined;
}

/** A required integer field within [min, max]. */
export function int(frame: Frame, key: keyof CustomValues, min: number, max: number): number {
  const v = frame.custom[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`${frame.code}: custom.${key} must be an integer ${min}..${max}, got ${String(v)}`);
  }
  return v;
}

/** A required number, converted to its raw code by `toCode` (which rounds to the nearest step). */
export function measure(frame: Frame, key: keyof CustomValues, toCode: (v: number) => number, max = 255): number {
  const v = frame.custom[key];
  const code = typeof v === 'number' && Number.isFinite(v) ? toCode(v) : NaN;
  if (!(code >= 0 && code <= max)) throw new RangeError(`${frame.code}: custom.${key} out of range: ${String(v)}`);
  return code;
}

/** Optional opaque bytes (`data`); '' counts as none. */
export function dataBytes(frame: Frame, maxBytes: number): number[] {
  const hex = frame.custom.data;
  if (hex === undefined) return [];
  const bytes = new Uint8Array(typeof hex === 'string' ? hex.length >> 1 : 0);
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || bytes.length > maxBytes || parseHex(hex, bytes) >= 0) {
    throw new RangeError(`${frame.code}: custom.data must be hex of at most ${maxBytes} bytes, got ${String(hex)}`);
  }
  return Array.from(bytes);
}

/** Appends a big-endian unsigned integer of `size` bytes. */
export function pushBE(out: number[], value: number, size: number): void {
  for (let i = size - 1; i >= 0; i--) out.push(Math.floor(value / 2 ** (8 * i)) & 0xff);
}
