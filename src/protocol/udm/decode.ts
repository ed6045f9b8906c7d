// Bytes → typed frame. Runs on every uplink: hex goes through a lookup table into one reused buffer,
// failures are returned as values, and nothing but the result objects is allocated.
//
// Validity is section 9.2, policy rules included. Where the spec is silent snsr decides, once:
// - rejected ("snsr policy"): DATA phone/PIN without its slot byte (as an event without its identifying
//   byte, rule 9); DATA/GPS with an undefined encoding type (5..15) or fewer bytes than its layout needs;
// - accepted as they read: BOOT with only the reset-cause byte, switch port nibbles 6..15 (letters G..P),
//   GPS minutes of 60 and more, GPS bits after the position (ignored), a P22 number of 7 or 8 bytes.
import { broken, type Note } from './codec.js';
import { CODECS } from './codecs.js';
import type { DecodeResult, Protocol } from './frame.js';
import { decodeHeader } from './header.js';
import { parseHex } from './hex.js';

/** Decoding is synchronous and codecs copy what they keep, so one buffer serves every call. */
const SCRATCH = new Uint8Array(12);

const fail = (reason: string): DecodeResult => ({ ok: false, reason });

/** Decodes a frame given as hex (any case) or bytes. Never throws: an invalid frame yields the broken rule. */
export function decode(frame: string | Uint8Array, protocol: Protocol): DecodeResult {
  return decodeTraced(frame, protocol);
}

/** `decode`, reporting every field it reads to `note` (used by explain). */
export function decodeTraced(frame: string | Uint8Array, protocol: Protocol, note?: Note): DecodeResult {
  if (protocol !== 'UDM22' && protocol !== 'UDM23') return fail(`unknown protocol ${String(protocol)}: use UDM22 or UDM23`);
  let b: Uint8Array;
  let n: number;
  if (typeof frame === 'string') {
    n = frame.length >> 1;
    if (frame.length % 2 !== 0) return fail(broken(1, `odd number of hex digits (${frame.length})`));
    if (n < 2 || n > 12) return fail(broken(1, `${n} byte${n === 1 ? '' : 's'}; a UDM frame has 2..12`));
    const bad = parseHex(frame, SCRATCH);
    if (bad >= 0) return fail(broken(1, `${JSON.stringify(frame[bad])} at position ${bad} is not a hex digit`));
    b = SCRATCH;
  } else if (frame instanceof Uint8Array) {
    n = frame.length;
    if (n < 2 || n > 12) return fail(broken(1, `${n} byte${n === 1 ? '' : 's'}; a UDM frame has 2..12`));
    b = frame;
  } else {
    return fail('frame must be a hex string or a Uint8Array');
  }
  const header = decodeHeader(b, protocol, note);
  if (typeof header === 'string') return fail(header);
  const result = CODECS[b[1] & 0x0f].decode(b, n, protocol, header, note);
  return typeof result === 'string' ? fail(result) : { ok: true, frame: result };
}
