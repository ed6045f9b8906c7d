// Phone numbers and PIN codes of DATA frames (sections 4.1, 4.2). Both layouts start with a slot byte;
// a frame without it names no slot and is rejected like an event without its identifying byte (rule 9).
import { broken, int, type Note } from './codec.js';
import type { CustomValues, Frame } from './frame.js';

const SLOT = 3; // 2 header bytes + data sub-type
const NO_SLOT = broken('snsr', 'phone/PIN data without its slot byte');

/**
 * P22 (UDM 2.2): slot byte = leading-zero count (2 bits) | slot (6 bits), then the remaining digits as a
 * little-endian integer in as few bytes as needed. BigInt because up to 8 bytes fit in a frame.
 */
export function decodeP22(b: Uint8Array, n: number, custom: CustomValues, note?: Note): number | string {
  if (n <= SLOT) return NO_SLOT;
  const zeros = b[SLOT] >> 6;
  let value = 0n;
  for (let i = n - 1; i > SLOT; i--) value = (value << 8n) | BigInt(b[i]);
  custom.slot = b[SLOT] & 0x3f;
  // The encoder moves every leading zero into the count, so a zero integer adds no digit.
  custom.phone = '0'.repeat(zeros) + (value === 0n ? '' : value.toString());
  note?.('leading zeros', SLOT * 8, 2, `${zeros} leading '0'`);
  note?.('slot', SLOT * 8 + 2, 6, `phone slot ${custom.slot}`);
  if (n > SLOT + 1) note?.('number', SLOT * 8 + 8, (n - SLOT - 1) * 8, `little-endian integer ${value} → "${custom.phone}"`);
  return n;
}

export function encodeP22(frame: Frame, out: number[]): void {
  const slot = int(frame, 'slot', 0, 63);
  const phone = frame.custom.phone;
  if (typeof phone !== 'string' || !/^\d*$/.test(phone)) throw new RangeError(`${frame.code}: UDM22 phone must be digits`);
  const zeros = phone.length - phone.replace(/^0+/, '').length;
  // The count field has 2 bits; the SDK refuses more than 4 zeros and would send 4 as 0, so refuse 4 too.
  if (zeros > 3) throw new RangeError(`${frame.code}: UDM22 phone may start with at most 3 zeros`);
  out.push((zeros << 6) | slot);
  for (let v = zeros < phone.length ? BigInt(phone.slice(zeros)) : 0n; v > 0n; v >>= 8n) out.push(Number(v & 0xffn));
}

/** P23 nibble characters (phone numbers and PIN codes, UDM 2.3). */
const CHARS = '0123456789 ()+-.';

/** P23: slot byte, then one nibble per character, high nibble first; a final 0xF low nibble is padding. */
export function decodeNibbles(b: Uint8Array, n: number, key: 'phone' | 'pin_code', custom: CustomValues, note?: Note): number | string {
  if (n <= SLOT) return NO_SLOT;
  let text = '';
  for (let i = SLOT + 1; i < n; i++) {
    text += CHARS[b[i] >> 4];
    if (i < n - 1 || (b[i] & 0x0f) !== 0x0f) text += CHARS[b[i] & 0x0f];
  }
  custom.slot = b[SLOT];
  custom[key] = text;
  note?.('slot', SLOT * 8, 8, `slot ${b[SLOT]}`);
  if (n > SLOT + 1) note?.(key, SLOT * 8 + 8, (n - SLOT - 1) * 8, `nibbles → "${text}"`);
  return n;
}

export function encodeNibbles(frame: Frame, key: 'phone' | 'pin_code', out: number[]): void {
  const slot = int(frame, 'slot', 0, 255);
  const text = frame.custom[key];
  const codes = typeof text === 'string' ? Array.from(text, (ch) => CHARS.indexOf(ch)) : [-1];
  if (codes.includes(-1) || codes.length > 16) {
    throw new RangeError(`${frame.code}: custom.${key} must be at most 16 of "${CHARS}"`);
  }
  // An even-length text ending in '.' would end in 0xF and read back as padding.
  if (codes.length % 2 === 0 && codes.at(-1) === 0x0f) throw new RangeError(`${frame.code}: an even-length ${key} cannot end with '.'`);
  if (codes.length % 2 === 1) codes.push(0x0f);
  out.push(slot);
  for (let i = 0; i < codes.length; i += 2) out.push((codes[i] << 4) | codes[i + 1]);
}
