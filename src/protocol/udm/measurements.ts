// The one-byte measurement formats of section 3.2. Decoders give human units; encoders round to the
// nearest step (the SDK truncates, but rounding makes decode(encode(x)) === x hold for any x a decoder
// produced, free of floating-point surprises) and return NaN when out of range.

/** V23 voltage: mV = (byte + 185) * 10, 1850..4400 mV in 10 mV steps. */
export const v23ToMv = (byte: number): number => (byte + 185) * 10;
export const mvToV23 = (mv: number): number => inRange(Math.round(mv / 10) - 185, 255);

/** T23 temperature: °C = byte * 0.5 - 30, -30..97.5 °C in half degrees. */
export const t23ToC = (byte: number): number => byte * 0.5 - 30;
export const cToT23 = (c: number): number => inRange(Math.round(c * 2) + 60, 255);

/**
 * VTD (TD native 8-bit voltage): low 7 bits = tens of mV above 2.0 V (bit 7 clear) or 3.0 V (bit 7 set).
 * 3000..3270 mV has both forms; the encoder picks the 3.0 V base, as in vector V11 (0x9E = 3300 mV).
 */
export const vtdToMv = (byte: number): number => (byte & 0x80 ? 3000 : 2000) + (byte & 0x7f) * 10;
export function mvToVtd(mv: number): number {
  const tens = Math.round(mv / 10);
  return tens >= 300 ? inRange(tens - 300, 127) + 0x80 : inRange(tens - 200, 127); // NaN stays NaN
}

/** Signed 8-bit whole degrees (UDM22 keep-alive). */
export const int8ToC = (byte: number): number => (byte << 24) >> 24;
export const cToInt8 = (c: number): number => {
  const v = Math.round(c);
  return v >= -128 && v <= 127 ? v & 0xff : NaN;
};

function inRange(code: number, max: number): number {
  return code >= 0 && code <= max ? code : NaN;
}
