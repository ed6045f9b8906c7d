// Field-by-field breakdown of a frame, for the CLI's --explain and for humans debugging uplinks. It runs
// the real decoder with a tracer, so the breakdown can never disagree with what decode returns.
import { decodeTraced } from './decode.js';
import type { DecodeResult, Protocol } from './frame.js';
import { parseHex, toHex } from './hex.js';

export interface ExplainField {
  name: string;
  /** Byte of the field's first bit (0 = first header byte). */
  offset: number;
  /** Spec notation: 'b0.7', 'b0.6-4', 'b3.3-b9.0' (byte.bit, bit 7 = MSB). */
  bits: string;
  bitLength: number;
  /** The field's bits as '0'/'1' characters, MSB first. */
  raw: string;
  meaning: string;
}

export interface ExplainResult {
  protocol: string;
  /** The frame as given (upper-cased when hex). */
  frame: string;
  /** Every field read, in frame order; for an invalid frame, those read before the broken rule. */
  fields: ExplainField[];
  result: DecodeResult;
}

export function explain(frame: string | Uint8Array, protocol: Protocol): ExplainResult {
  const text = typeof frame === 'string' ? frame.toUpperCase() : frame instanceof Uint8Array ? toHex(frame) : '';
  const bytes = new Uint8Array(text.length >> 1);
  const readable = text.length % 2 === 0 && parseHex(text, bytes) < 0;
  const fields: ExplainField[] = [];
  const result = decodeTraced(frame, protocol, (name, start, length, meaning) => {
    let raw = '';
    for (let i = start; i < start + length && readable; i++) raw += (bytes[i >> 3] >> (7 - (i & 7))) & 1;
    fields.push({ name, offset: start >> 3, bits: bitRange(start, length), bitLength: length, raw, meaning });
  });
  return { protocol: String(protocol), frame: text, fields, result };
}

function bitRange(start: number, length: number): string {
  const end = start + length - 1;
  const first = `b${start >> 3}.${7 - (start & 7)}`;
  if (length === 1) return first;
  return end >> 3 === start >> 3 ? `${first}-${7 - (end & 7)}` : `${first}-b${end >> 3}.${7 - (end & 7)}`;
}
