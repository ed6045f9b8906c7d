// RAW (type 4) and GEOLOC (type 6, never emitted by any SDK; accepted as opaque by snsr policy, section 7):
// 0..10 bytes the cloud does not interpret, reported as hex.
import { dataBytes, onlyKeys, opaqueTail, type FrameCodec } from './codec.js';

export const opaqueCodec: FrameCodec = {
  decode(b, n, _p, header, note) {
    const frame = { header, code: header.type, custom: {} };
    opaqueTail(b, 2, n, frame.custom, note);
    return frame;
  },
  encode(frame, _p, out) {
    onlyKeys(frame, ['data']);
    out.push(...dataBytes(frame, 10));
  },
};
