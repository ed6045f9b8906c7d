// REGISTER (type 2) and PING (type 7), section 5. UDM22 REGISTER: version, class, Sigfox ID (7 bytes).
// UDM23 REGISTER and PING: version, software release, class, Sigfox ID, optional custom byte (9/10 bytes).
import { broken, hex2, int, onlyKeys, pushBE, type FrameCodec, type Note } from './codec.js';
import type { CustomValues, Frame, FrameHeader, Protocol } from './frame.js';
import { toHex } from './hex.js';

const P = 2; // first payload byte
const VERSION: Record<Protocol, number> = { UDM22: 0x22, UDM23: 0x23 };
const versionString = (byte: number): string => `${byte >> 4}.${byte & 0x0f}`;

function decodeRegister(b: Uint8Array, n: number, p: Protocol, header: FrameHeader, note?: Note): Frame | string {
  const code = header.type; // 'register' or 'ping': no sub-type, so the code is the type name
  const size = n - P;
  if (p === 'UDM22' ? size !== 7 : size !== 9 && size !== 10) {
    return broken(4, `${code} payload is ${size} bytes; ${p} needs ${p === 'UDM22' ? '7' : '9 or 10'}`);
  }
  note?.('version', P * 8, 8, `UDM ${versionString(b[P])}`);
  if (b[P] !== VERSION[p]) return broken(10, `${code} announces version ${hex2(b[P])}, ${p} expects ${hex2(VERSION[p])}`);
  const custom: CustomValues = { version: versionString(b[P]) };
  let at = P + 1;
  if (p === 'UDM23') {
    custom.software_release = (b[at] << 8) | b[at + 1];
    note?.('software_release', at * 8, 16, `application release ${custom.software_release}`);
    at += 2;
  }
  custom.device_class = (b[at] << 8) | b[at + 1];
  custom.sigfox_id = toHex(b, at + 2, at + 6);
  note?.('device_class', at * 8, 16, `class ${custom.device_class}`);
  note?.('sigfox_id', (at + 2) * 8, 32, `Sigfox ID ${custom.sigfox_id}`);
  if (n > at + 6) {
    custom.custom_value = b[at + 6];
    note?.('custom_value', (at + 6) * 8, 8, `custom byte ${custom.custom_value}`);
  }
  return { header, code, custom };
}

function encodeRegister(frame: Frame, p: Protocol, out: number[]): void {
  onlyKeys(frame, p === 'UDM22' ? ['version', 'device_class', 'sigfox_id'] : ['version', 'software_release', 'device_class', 'sigfox_id', 'custom_value']);
  const c = frame.custom;
  if (c.version !== versionString(VERSION[p])) throw new RangeError(`${frame.code}: ${p} requires custom.version "${versionString(VERSION[p])}"`);
  if (typeof c.sigfox_id !== 'string' || !/^[0-9A-Fa-f]{8}$/.test(c.sigfox_id)) {
    throw new RangeError(`${frame.code}: custom.sigfox_id must be 8 hex digits`);
  }
  out.push(VERSION[p]);
  if (p === 'UDM23') pushBE(out, int(frame, 'software_release', 0, 0xffff), 2);
  pushBE(out, int(frame, 'device_class', 0, 0xffff), 2);
  pushBE(out, parseInt(c.sigfox_id, 16), 4);
  if (p === 'UDM23' && c.custom_value !== undefined) out.push(int(frame, 'custom_value', 0, 255));
}

export const registerCodec: FrameCodec = { decode: decodeRegister, encode: encodeRegister };
/** PING exists only in UDM23 (the header rejects type 7 under UDM22) and shares the 2.3 REGISTER layout. */
export const pingCodec: FrameCodec = registerCodec;
