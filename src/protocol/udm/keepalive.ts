// KEEPALIVE frames (type 3, section 6). UDM22: nothing (G1) or voltage, temperature, interval (3 bytes).
// UDM23: sub-type + interval in hours, then what the sub-type carries, then optional custom bytes.
import { broken, dataBytes, has, int, measure, onlyKeys, opaqueTail, type FrameCodec, type Note } from './codec.js';
import type { CustomValues, Frame, FrameHeader } from './frame.js';
import { cToInt8, cToT23, int8ToC, mvToV23, mvToVtd, t23ToC, v23ToMv, vtdToMv } from './measurements.js';

const P = 2; // first payload byte

/** UDM23 sub-types by byte: what follows the interval, and the minimum payload (rule 5). */
const SUBTYPES = [
  { code: 'keepalive_voltage_temp', measures: true, geoloc: false, min: 4 },
  { code: 'keepalive_voltage_temp_geoloc', measures: true, geoloc: true, min: 10 },
  { code: 'keepalive_geoloc', measures: false, geoloc: true, min: 8 },
  { code: 'keepalive_custom', measures: false, geoloc: false, min: 2 },
] as const;

/** The SDK never sends a real position in a keep-alive, only this placeholder; it is not reported. */
const GEOLOC_PLACEHOLDER = [1, 2, 3, 4, 5, 6];

function decodeV22(b: Uint8Array, n: number, header: FrameHeader, note?: Note): Frame | string {
  if (n !== P && n !== P + 3) return broken(6, `UDM22 keep-alive payload is ${n - P} bytes, not 0 or 3`);
  const custom: CustomValues = {};
  if (n === P + 3) {
    custom.voltage_mv = vtdToMv(b[P]);
    custom.temperature_c = int8ToC(b[P + 1]);
    custom.interval_h = b[P + 2];
    note?.('voltage', P * 8, 8, `VTD: ${b[P] & 0x80 ? 3000 : 2000} + ${b[P] & 0x7f} × 10 = ${custom.voltage_mv} mV`);
    note?.('temperature', P * 8 + 8, 8, `signed ${custom.temperature_c} °C`);
    note?.('interval', P * 8 + 16, 8, `${custom.interval_h} h`);
  }
  return { header, code: 'keepalive', custom };
}

function decodeV23(b: Uint8Array, n: number, header: FrameHeader, note?: Note): Frame | string {
  if (n < P + 2) return broken(5, 'UDM23 keep-alive needs a sub-type and an interval byte');
  const sub = SUBTYPES[b[P]];
  note?.('keepalive sub-type', P * 8, 8, `${b[P]} = ${sub?.code ?? 'undefined'}`);
  if (sub === undefined) return broken(8, `keep-alive sub-type ${b[P]} is not defined`);
  if (n < P + sub.min) return broken(5, `${sub.code} needs ${sub.min} payload bytes, the frame has ${n - P}`);
  const custom: CustomValues = { interval_h: b[P + 1] };
  note?.('interval', P * 8 + 8, 8, `${custom.interval_h} h`);
  let at = P + 2;
  if (sub.measures) {
    custom.voltage_mv = v23ToMv(b[at]);
    custom.temperature_c = t23ToC(b[at + 1]);
    note?.('voltage', at * 8, 8, `(${b[at]} + 185) × 10 = ${custom.voltage_mv} mV`);
    note?.('temperature', at * 8 + 8, 8, `${b[at + 1]} × 0.5 - 30 = ${custom.temperature_c} °C`);
    at += 2;
  }
  if (sub.geoloc) {
    note?.('geoloc', at * 8, 48, 'placeholder position bytes, not reported');
    at += 6;
  }
  opaqueTail(b, at, n, custom, note);
  return { header, code: sub.code, custom };
}

export const keepaliveCodec: FrameCodec = {
  decode: (b, n, p, header, note) => (p === 'UDM22' ? decodeV22(b, n, header, note) : decodeV23(b, n, header, note)),
  encode(frame, p, out) {
    if (p === 'UDM22') {
      if (frame.code !== 'keepalive') throw new RangeError(`${frame.code} is not a UDM22 keep-alive code`);
      onlyKeys(frame, ['voltage_mv', 'temperature_c', 'interval_h']);
      const c = frame.custom;
      if (!has(c, 'voltage_mv') && !has(c, 'temperature_c') && !has(c, 'interval_h')) return; // G1: empty
      out.push(measure(frame, 'voltage_mv', mvToVtd), measure(frame, 'temperature_c', cToInt8), int(frame, 'interval_h', 0, 255));
      return;
    }
    const index = SUBTYPES.findIndex((s) => s.code === frame.code);
    if (index < 0) throw new RangeError(`${frame.code} is not a UDM23 keep-alive code`);
    const sub = SUBTYPES[index];
    onlyKeys(frame, sub.measures ? ['interval_h', 'voltage_mv', 'temperature_c', 'data'] : ['interval_h', 'data']);
    out.push(index, int(frame, 'interval_h', 0, 255));
    if (sub.measures) out.push(measure(frame, 'voltage_mv', mvToV23), measure(frame, 'temperature_c', cToT23));
    if (sub.geoloc) out.push(...GEOLOC_PLACEHOLDER);
    out.push(...dataBytes(frame, 10)); // encode() refuses the frame if this overflows 12 bytes
  },
};
