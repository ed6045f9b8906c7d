// DATA/GPS (sub-type 1, section 4.3): an MSB-first bit-stream after the sub-type byte, starting with a
// 4-bit encoding type. Positions are reported in decimal degrees; the decoder builds them from whole
// 1e-7 degree units so that re-encoding recovers exactly the integers that were sent.
import { BitWriter, readBits } from './bits.js';
import { broken, has, int, onlyKeys, type Note } from './codec.js';
import type { CustomValues, Frame } from './frame.js';

const STREAM = 3; // first byte of the bit-stream: 2 header bytes + sub-type
const POS = STREAM * 8 + 4; // first position bit, after the encoding type
const MAX48 = 2 ** 48 - 1;

interface XyLayout { name: string; width: number; latStep: number; lonStep: number; date: boolean }

/** Types 1..4: lat/lon as value × step (in 1e-7 degrees); index 0 is XYZ_SV_HDOP, handled apart. */
const XY: readonly (XyLayout | undefined)[] = [
  undefined,
  { name: 'XY_DATE', width: 23, latStep: 108, lonStep: 215, date: true },
  { name: 'XY_1M', width: 23, latStep: 108, lonStep: 215, date: false },
  { name: 'XY_20M', width: 19, latStep: 1717, lonStep: 3434, date: false },
  { name: 'XY_300M', width: 15, latStep: 27494, lonStep: 55043, date: false },
];
const DATE_FIELDS = [['month', 4], ['day', 5], ['hour', 5], ['minute', 6]] as const;

export function decodeGps(b: Uint8Array, n: number, custom: CustomValues, note?: Note): number | string {
  if (n <= STREAM) return broken('snsr', 'GPS data without its encoding type');
  const type = b[STREAM] >> 4;
  const xy = XY[type];
  const name = type === 0 ? 'XYZ_SV_HDOP' : xy?.name;
  note?.('gps type', STREAM * 8, 4, `${type} = ${name ?? 'undefined'}`);
  if (name === undefined) return broken('snsr', `GPS encoding type ${type} is not defined`);
  const bits = 4 + (xy ? 2 + 2 * xy.width + (xy.date ? 20 : 0) : 68);
  const end = STREAM + Math.ceil(bits / 8);
  if (n < end) return broken('snsr', `GPS ${name} needs ${end} bytes, the frame has ${n}`);
  if (xy) decodeXy(b, xy, custom, note);
  else decodeXyz(b, custom, note);
  if (n > end) note?.('user bits', end * 8, (n - end) * 8, 'application bits after the position, ignored');
  return n;
}

/** ddmmmmm (degrees × 1e5 + minutes × 1e3) → 1e-7 degrees, exact to the unit. */
const ddmmToE7 = (code: number): number => Math.floor(code / 1e5) * 1e7 + Math.round(((code % 1e5) * 500) / 3);
const ddmm = (code: number): string => `${Math.floor(code / 1e5)}°${((code % 1e5) / 1000).toFixed(3)}'`;
/** A zero magnitude stays +0 whatever its sign bit, so JSON and deep equality agree. */
const signed = (e7: number, negative: number): number => (negative && e7 ? -e7 : e7) / 1e7;

function decodeXyz(b: Uint8Array, custom: CustomValues, note?: Note): void {
  const n48 = readBits(b, POS, 48);
  const alt = readBits(b, POS + 48, 12);
  const signs = readBits(b, POS + 60, 3); // lon west, lat south, altitude negative
  custom.fix = !(n48 === MAX48 && alt === 4095 && signs === 7); // no fix = 63 one-bits
  if (custom.fix) {
    custom.latitude = signed(ddmmToE7(n48 % 1e7), signs & 2);
    custom.longitude = signed(ddmmToE7(Math.floor(n48 / 1e7)), signs & 4);
    custom.altitude_m = signs & 1 && alt ? -alt * 2 : alt * 2;
  }
  custom.satellites = readBits(b, POS + 63, 3);
  custom.hdop_class = readBits(b, POS + 66, 2);
  if (note) {
    const pos = custom.fix ? `lon ${ddmm(Math.floor(n48 / 1e7))}, lat ${ddmm(n48 % 1e7)}` : 'all ones: no fix';
    note('position', POS, 48, pos);
    note('altitude', POS + 48, 12, custom.fix ? `${alt} × 2 m` : 'no fix');
    const sign = (bit: number, what: string, yes: string, no: string): string => `${what} ${signs & bit ? yes : no}`;
    note('sign', POS + 60, 1, sign(4, 'longitude', 'west', 'east'));
    note('sign', POS + 61, 1, sign(2, 'latitude', 'south', 'north'));
    note('sign', POS + 62, 1, sign(1, 'altitude', 'negative', 'positive'));
    note('satellites', POS + 63, 3, `${custom.satellites} satellites`);
    note('hdop class', POS + 66, 2, `class ${custom.hdop_class} (≤2, ≤5, ≤10, worse)`);
  }
}

function decodeXy(b: Uint8Array, xy: XyLayout, custom: CustomValues, note?: Note): void {
  const w = xy.width;
  const max = 2 ** w - 1;
  const lonNeg = readBits(b, POS, 1);
  const latNeg = readBits(b, POS + 1, 1);
  const lat = readBits(b, POS + 2, w);
  const lon = readBits(b, POS + 2 + w, w);
  custom.fix = !(!lonNeg && !latNeg && lat === max && lon === max); // "nofix": signs 0, values all ones
  if (custom.fix) {
    custom.latitude = signed(lat * xy.latStep, latNeg);
    custom.longitude = signed(lon * xy.lonStep, lonNeg);
  }
  note?.('sign', POS, 1, `longitude ${lonNeg ? 'west' : 'east'}`);
  note?.('sign', POS + 1, 1, `latitude ${latNeg ? 'south' : 'north'}`);
  note?.('latitude', POS + 2, w, custom.fix ? `${lat} × ${xy.latStep}e-7° = ${custom.latitude}°` : 'no fix');
  note?.('longitude', POS + 2 + w, w, custom.fix ? `${lon} × ${xy.lonStep}e-7° = ${custom.longitude}°` : 'no fix');
  if (!xy.date) return;
  let at = POS + 2 + 2 * w;
  for (const [key, len] of DATE_FIELDS) {
    custom[key] = readBits(b, at, len);
    note?.(key, at, len, `${key} ${custom[key]} (UTC)`);
    at += len;
  }
}

// ---- encoding: the custom keys present choose the layout ----

export function encodeGps(frame: Frame, out: number[]): void {
  const c = frame.custom;
  const xyz = has(c, 'satellites') || has(c, 'hdop_class') || has(c, 'altitude_m');
  const dated = DATE_FIELDS.some(([key]) => has(c, key));
  const fix = c.fix ?? (has(c, 'latitude') || has(c, 'longitude'));
  if (typeof fix !== 'boolean') throw new RangeError(`${frame.code}: custom.fix must be a boolean`);
  if (xyz && dated) throw new RangeError(`${frame.code}: no GPS layout has both a date and altitude/satellites/hdop`);
  onlyKeys(frame, [
    'fix', ...(fix ? (['latitude', 'longitude'] as const) : []),
    ...(xyz ? ([...(fix ? ['altitude_m'] as const : []), 'satellites', 'hdop_class'] as const) : []),
    ...(dated ? DATE_FIELDS.map(([key]) => key) : []),
  ]);
  const w = new BitWriter();
  if (xyz) encodeXyz(frame, fix, w);
  else encodeXy(frame, fix, dated, w);
  w.flushTo(out);
}

/** |degrees| in whole 1e-7 degree units, and the sign. */
function coordinate(frame: Frame, key: 'latitude' | 'longitude'): { abs: number; neg: boolean } {
  const v = frame.custom[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > 1000) {
    throw new RangeError(`${frame.code}: custom.${key} must be a number of degrees, got ${String(v)}`);
  }
  return { abs: Math.round(Math.abs(v) * 1e7), neg: v < 0 };
}

/**
 * ddmmmmm codes for 1e-7 degrees: the canonical one, then (for decoded garbage whose minutes were 60+)
 * the equivalent "previous degree + 60+ minutes" form, in case only that one fits the 48-bit field.
 */
function ddmmCodes(e7: number): number[] {
  let deg = Math.floor(e7 / 1e7);
  let min = Math.round(((e7 - deg * 1e7) * 3) / 500);
  if (min === 60000) [deg, min] = [deg + 1, 0];
  const code = deg * 1e5 + min;
  return min < 40000 && deg > 0 ? [code, code - 40000] : [code];
}

function encodeXyz(frame: Frame, fix: boolean, w: BitWriter): void {
  w.write(0, 4);
  if (!fix) w.write(MAX48, 48).write(4095, 12).write(7, 3);
  else {
    const lat = coordinate(frame, 'latitude');
    const lon = coordinate(frame, 'longitude');
    const altitude = frame.custom.altitude_m;
    const alt = typeof altitude === 'number' ? Math.round(Math.abs(altitude) / 2) : NaN;
    if (!(alt <= 4095)) throw new RangeError(`${frame.code}: custom.altitude_m must be -8190..8190, got ${String(altitude)}`);
    const signs = (lon.neg && lon.abs ? 4 : 0) | (lat.neg && lat.abs ? 2 : 0) | ((altitude as number) < 0 && alt ? 1 : 0);
    const n48 = ddmmCodes(lon.abs)
      .flatMap((lonCode) => ddmmCodes(lat.abs).map((latCode) => (latCode < 1e7 ? lonCode * 1e7 + latCode : Infinity)))
      .find((v) => v <= MAX48 && !(v === MAX48 && alt === 4095 && signs === 7));
    if (n48 === undefined) throw new RangeError(`${frame.code}: position does not fit the XYZ_SV_HDOP layout`);
    w.write(n48, 48).write(alt, 12).write(signs, 3);
  }
  w.write(int(frame, 'satellites', 0, 7), 3).write(int(frame, 'hdop_class', 0, 3), 2);
}

/** Without a date, the coarsest XY layout whose grid holds both coordinates exactly; else XY_1M, rounded. */
function encodeXy(frame: Frame, fix: boolean, dated: boolean, w: BitWriter): void {
  const types = dated ? [1] : [4, 3, 2];
  const lat = fix ? coordinate(frame, 'latitude') : undefined;
  const lon = fix ? coordinate(frame, 'longitude') : undefined;
  const type = types.find((t, i) => {
    const xy = XY[t] as XyLayout;
    if (!lat || !lon) return true;
    const max = 2 ** xy.width - 1;
    const latV = Math.round(lat.abs / xy.latStep);
    const lonV = Math.round(lon.abs / xy.lonStep);
    const exact = i === types.length - 1 || (lat.abs % xy.latStep === 0 && lon.abs % xy.lonStep === 0);
    const noFixLook = !(lat.neg && latV) && !(lon.neg && lonV) && latV === max && lonV === max;
    return exact && latV <= max && lonV <= max && !noFixLook;
  });
  if (type === undefined) throw new RangeError(`${frame.code}: position does not fit an XY layout`);
  const xy = XY[type] as XyLayout;
  const max = 2 ** xy.width - 1;
  w.write(type, 4);
  if (!lat || !lon) w.write(0, 2).write(max, xy.width).write(max, xy.width);
  else {
    const latV = Math.round(lat.abs / xy.latStep);
    const lonV = Math.round(lon.abs / xy.lonStep);
    w.write(lon.neg && lonV ? 1 : 0, 1).write(lat.neg && latV ? 1 : 0, 1).write(latV, xy.width).write(lonV, xy.width);
  }
  if (dated) for (const [key, len] of DATE_FIELDS) w.write(int(frame, key, 0, 2 ** len - 1), len);
}
