// Typed frame → the exact bytes a module sends. Encoders accept only what the decoder can give back
// (decode(encode(f)) deep-equals f for every decoded f) and throw RangeError on anything else.
import { CODECS } from './codecs.js';
import type { Frame, Protocol } from './frame.js';
import { FRAME_TYPES, encodeHeader } from './header.js';

/** Frame types without a sub-type: their code is the type name itself (section 9.1b). */
const BARE = new Set(['register', 'ping', 'raw', 'geoloc']);

export function encode(frame: Frame, protocol: Protocol): Uint8Array {
  if (protocol !== 'UDM22' && protocol !== 'UDM23') throw new RangeError(`unknown protocol ${String(protocol)}`);
  if (typeof frame?.header !== 'object' || typeof frame.custom !== 'object' || frame.custom === null || typeof frame.code !== 'string') {
    throw new RangeError('not a frame: expected { header, code, custom }');
  }
  const { type } = frame.header;
  const family = frame.code.split('_', 1)[0];
  if (family !== type || (BARE.has(type) && frame.code !== type)) {
    throw new RangeError(`code ${frame.code} does not belong to frame type ${String(type)}`);
  }
  if (type === 'ping' && protocol === 'UDM22') throw new RangeError('PING does not exist in UDM22');
  const out: number[] = [];
  encodeHeader(frame.header, out);
  CODECS[FRAME_TYPES.indexOf(type)].encode(frame, protocol, out);
  if (out.length > 12) throw new RangeError(`${frame.code}: ${out.length} bytes, more than the 12 of a Sigfox frame`);
  return Uint8Array.from(out);
}
