// EVENT frames (type 0, section 3): payload = event code + event data. One table lists every code; the
// shape of the data is one of a few kinds, each decoded and encoded in one place.
import { broken, dataBytes, has, hex2, int, measure, onlyKeys, opaqueTail, type FrameCodec, type Note } from './codec.js';
import type { CustomValues, Frame, Protocol } from './frame.js';
import { cToT23, mvToV23, t23ToC, v23ToMv } from './measurements.js';

interface EventKind {
  keys(p: Protocol): readonly (keyof CustomValues)[];
  /** Decodes the data bytes from b[3]; returns the index after the last byte used, or a reason. */
  decode(b: Uint8Array, n: number, p: Protocol, custom: CustomValues, note?: Note): number | string;
  encode(frame: Frame, p: Protocol, out: number[]): void;
}

const DATA = 3; // index of the first event data byte (2 header bytes + event code)

/** UDM23 battery events carry an optional V23 byte, UDM22 ones nothing (rule 9: missing measurement is fine). */
const voltage: EventKind = {
  keys: (p) => (p === 'UDM23' ? ['voltage_mv'] : []),
  decode(b, n, p, custom, note) {
    if (p === 'UDM22' || n <= DATA) return DATA;
    custom.voltage_mv = v23ToMv(b[DATA]);
    note?.('voltage', DATA * 8, 8, `(${b[DATA]} + 185) × 10 = ${custom.voltage_mv} mV`);
    return DATA + 1;
  },
  encode(frame, p, out) {
    if (p === 'UDM23' && has(frame.custom, 'voltage_mv')) out.push(measure(frame, 'voltage_mv', mvToV23));
  },
};

/** BATTERY_OK: UDM22 sends a required raw "level" byte (low byte of a mV value), UDM23 a V23 voltage. */
const level: EventKind = {
  keys: (p) => (p === 'UDM23' ? ['voltage_mv'] : ['level']),
  decode(b, n, p, custom, note) {
    if (p === 'UDM23') return voltage.decode(b, n, p, custom, note);
    if (n <= DATA) return broken(9, 'UDM22 battery-ok event without its level byte');
    custom.level = b[DATA];
    note?.('level', DATA * 8, 8, `raw battery level byte ${b[DATA]}`);
    return DATA + 1;
  },
  encode(frame, p, out) {
    if (p === 'UDM23') voltage.encode(frame, p, out);
    else out.push(int(frame, 'level', 0, 255));
  },
};

const temperature: EventKind = {
  keys: (p) => (p === 'UDM23' ? ['temperature_c'] : []),
  decode(b, n, p, custom, note) {
    if (p === 'UDM22' || n <= DATA) return DATA;
    custom.temperature_c = t23ToC(b[DATA]);
    note?.('temperature', DATA * 8, 8, `${b[DATA]} × 0.5 - 30 = ${custom.temperature_c} °C`);
    return DATA + 1;
  },
  encode(frame, p, out) {
    if (p === 'UDM23' && has(frame.custom, 'temperature_c')) out.push(measure(frame, 'temperature_c', cToT23));
  },
};

/** CONNECTION_* / RSSI_*: the gateway reports on the child whose table index is the data byte. */
const child: EventKind = {
  keys: () => ['child_index'],
  decode(b, n, _p, custom, note) {
    if (n <= DATA) return broken(9, 'connection/RSSI event without the child index byte');
    custom.child_index = b[DATA];
    note?.('child_index', DATA * 8, 8, `concerns child ${b[DATA]}`);
    return DATA + 1;
  },
  encode: (frame, _p, out) => void out.push(int(frame, 'child_index', 0, 255)),
};

/** SWITCH_*: high nibble = GPIO port (A=0 … F=5 on EFM32; higher nibbles read on as G..P), low = pin. */
const switchId: EventKind = {
  keys: () => ['port', 'pin'],
  decode(b, n, _p, custom, note) {
    if (n <= DATA) return broken(9, 'switch event without the switch id byte');
    custom.port = String.fromCharCode(65 + (b[DATA] >> 4));
    custom.pin = b[DATA] & 0x0f;
    note?.('port', DATA * 8, 4, `GPIO port ${custom.port}`);
    note?.('pin', DATA * 8 + 4, 4, `pin ${custom.pin}`);
    return DATA + 1;
  },
  encode(frame, _p, out) {
    const port = frame.custom.port;
    const code = typeof port === 'string' && port.length === 1 ? port.charCodeAt(0) - 65 : -1;
    if (code < 0 || code > 15) throw new RangeError(`${frame.code}: custom.port must be a letter A..P, got ${String(port)}`);
    out.push((code << 4) | int(frame, 'pin', 0, 15));
  },
};

/** BOOT: nothing (AT$EB), or reset cause + custom cause, plus G2's optional extra bits as `data`. */
const boot: EventKind = {
  keys: () => ['reset_cause', 'custom_cause', 'data'],
  decode(b, n, _p, custom, note) {
    if (n > DATA) {
      custom.reset_cause = b[DATA];
      note?.('reset_cause', DATA * 8, 8, `RMU_RSTCAUSE low byte ${hex2(b[DATA])}`);
    }
    if (n > DATA + 1) {
      custom.custom_cause = b[DATA + 1];
      note?.('custom_cause', DATA * 8 + 8, 8, `application boot cause ${b[DATA + 1]}`);
    }
    return opaqueTail(b, DATA + 2, n, custom, note);
  },
  encode(frame, p, out) {
    const c = frame.custom;
    if ((has(c, 'custom_cause') && !has(c, 'reset_cause')) || (has(c, 'data') && !has(c, 'custom_cause'))) {
      throw new RangeError(`${frame.code}: custom_cause needs reset_cause, data needs both`);
    }
    if (has(c, 'reset_cause')) out.push(int(frame, 'reset_cause', 0, 255));
    if (has(c, 'custom_cause')) out.push(int(frame, 'custom_cause', 0, 255));
    out.push(...dataBytes(frame, 7));
  },
};

/** Accelero move and custom events: 0..9 free bytes, reported as hex. */
const free: EventKind = {
  keys: () => ['data'],
  decode: (b, n, _p, custom, note) => opaqueTail(b, DATA, n, custom, note),
  encode: (frame, _p, out) => void out.push(...dataBytes(frame, 9)),
};

interface EventDef { code: string; kind: EventKind; udm23Only: boolean }

const NAMED: readonly (readonly [string, EventKind])[] = [
  ['battery_low', voltage], ['battery_ok', level], ['connection_lost', child], ['connection_ok', child],
  ['rssi_low', child], ['rssi_ok', child], ['temp_low', temperature], ['temp_high', temperature],
  ['temp_ok', temperature], ['boot', boot], ['switch_on', switchId], ['switch_off', switchId],
  ['accelero_move', free],
];

/** Event definitions by code byte: 0..12 named, 128..164 EVENT_CUSTOM_1..37 (26..37 from UDM 2.3). */
export const EVENTS: readonly (EventDef | undefined)[] = Array.from({ length: 256 }, (_, i) => {
  if (i < NAMED.length) return { code: `event_${NAMED[i][0]}`, kind: NAMED[i][1], udm23Only: false };
  if (i >= 128 && i <= 164) return { code: `event_custom_${i - 127}`, kind: free, udm23Only: i > 152 };
  return undefined;
});

/** Event code byte by `code` string. */
export const EVENT_CODES: ReadonlyMap<string, number> = new Map(
  EVENTS.flatMap((e, i) => (e ? [[e.code, i] as const] : [])),
);

export const eventCodec: FrameCodec = {
  decode(b, n, p, header, note) {
    if (n < 3) return broken(3, 'event frame without an event code');
    const def = EVENTS[b[2]];
    if (def === undefined || (def.udm23Only && p === 'UDM22')) {
      note?.('event code', 16, 8, `${hex2(b[2])} = undefined in ${p}`);
      return broken(7, `event code ${hex2(b[2])} is not defined in ${p}`);
    }
    note?.('event code', 16, 8, `${hex2(b[2])} = ${def.code}`);
    const custom: CustomValues = {};
    const end = def.kind.decode(b, n, p, custom, note);
    if (typeof end === 'string') return end;
    if (end < n) note?.('ignored', end * 8, (n - end) * 8, 'extra bytes after the event data, tolerated (9.2 rule 9)');
    return { header, code: def.code, custom };
  },
  encode(frame, p, out) {
    const byte = EVENT_CODES.get(frame.code);
    const def = byte === undefined ? undefined : EVENTS[byte];
    if (byte === undefined || def === undefined || (def.udm23Only && p === 'UDM22')) {
      throw new RangeError(`${frame.code} is not an event code of ${p}`);
    }
    onlyKeys(frame, def.kind.keys(p));
    out.push(byte);
    def.kind.encode(frame, p, out);
  },
};
