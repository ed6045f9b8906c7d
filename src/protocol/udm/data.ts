// DATA frames (type 1, section 4): payload = sub-type + up to 9 bytes.
import { broken, dataBytes, onlyKeys, opaqueTail, type FrameCodec, type Note } from './codec.js';
import type { CustomValues, Frame, Protocol } from './frame.js';
import { decodeGps, encodeGps } from './gps.js';
import { decodeNibbles, decodeP22, encodeNibbles, encodeP22 } from './phone.js';

interface SubType {
  code: string;
  decode(b: Uint8Array, n: number, p: Protocol, custom: CustomValues, note?: Note): number | string;
  encode(frame: Frame, p: Protocol, out: number[]): void;
}

/** By sub-type byte; UDM22 knows the first three (rule 8). */
const SUBTYPES: readonly SubType[] = [
  {
    code: 'data_phone',
    decode: (b, n, p, custom, note) => (p === 'UDM22' ? decodeP22(b, n, custom, note) : decodeNibbles(b, n, 'phone', custom, note)),
    encode(frame, p, out) {
      onlyKeys(frame, ['slot', 'phone']);
      if (p === 'UDM22') encodeP22(frame, out);
      else encodeNibbles(frame, 'phone', out);
    },
  },
  { code: 'data_gps', decode: (b, n, _p, custom, note) => decodeGps(b, n, custom, note), encode: (frame, _p, out) => encodeGps(frame, out) },
  {
    code: 'data_custom',
    decode: (b, n, _p, custom, note) => opaqueTail(b, 3, n, custom, note),
    encode(frame, _p, out) {
      onlyKeys(frame, ['data']);
      out.push(...dataBytes(frame, 9));
    },
  },
  {
    code: 'data_pin',
    decode: (b, n, _p, custom, note) => decodeNibbles(b, n, 'pin_code', custom, note),
    encode(frame, _p, out) {
      onlyKeys(frame, ['slot', 'pin_code']);
      encodeNibbles(frame, 'pin_code', out);
    },
  },
];

const known = (p: Protocol): number => (p === 'UDM22' ? 3 : 4);

export const dataCodec: FrameCodec = {
  decode(b, n, p, header, note) {
    if (n < 3) return broken(3, 'data frame without a sub-type');
    const sub = b[2] < known(p) ? SUBTYPES[b[2]] : undefined;
    note?.('data sub-type', 16, 8, `${b[2]} = ${sub?.code ?? `undefined in ${p}`}`);
    if (sub === undefined) return broken(8, `data sub-type ${b[2]} is not defined in ${p}`);
    const custom: CustomValues = {};
    const end = sub.decode(b, n, p, custom, note);
    return typeof end === 'string' ? end : { header, code: sub.code, custom };
  },
  encode(frame, p, out) {
    const index = SUBTYPES.findIndex((s) => s.code === frame.code);
    if (index < 0 || index >= known(p)) throw new RangeError(`${frame.code} is not a data sub-type of ${p}`);
    out.push(index);
    SUBTYPES[index].encode(frame, p, out);
  },
};
