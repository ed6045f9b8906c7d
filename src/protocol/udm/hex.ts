// Hex <-> bytes without regexes or intermediate strings: decode runs this on every uplink.

/** Nibble value per char code below 128, -1 for anything that is not a hex digit. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) NIBBLE[65 + i] = NIBBLE[97 + i] = 10 + i;

const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));

/**
 * Writes the bytes of the even-length hex string `s` (any case) into `out` (which must be large enough).
 * Returns -1 on success, else the index of the first character that is not a hex digit.
 */
export function parseHex(s: string, out: Uint8Array): number {
  for (let i = 0, j = 0; i < s.length; i += 2, j++) {
    const c1 = s.charCodeAt(i);
    const c2 = s.charCodeAt(i + 1);
    const hi = c1 < 128 ? NIBBLE[c1] : -1;
    const lo = c2 < 128 ? NIBBLE[c2] : -1;
    if (hi < 0) return i;
    if (lo < 0) return i + 1;
    out[j] = (hi << 4) | lo;
  }
  return -1;
}

/** Upper-case hex of `b[from..to)`. */
export function toHex(b: ArrayLike<number>, from = 0, to = b.length): string {
  let s = '';
  for (let i = from; i < to; i++) s += BYTE_HEX[b[i]];
  return s;
}

/**
 * A frame as people paste it — `0x` prefix, spaces or tabs between bytes, either case — as the
 * plain hex the decoder reads. Anything else is left for the decoder to call invalid.
 */
export function normalizeFrameText(text: string): string {
  const compact = text.replace(/\s+/g, '');
  return (/^0x/i.test(compact) ? compact.slice(2) : compact).toUpperCase();
}
