import { decode } from '../../protocol/udm/index.js';
import type { Frame, Protocol } from '../../protocol/udm/index.js';
import type { IngestModule } from '../ingest-store.js';

export type DecodedFrame =
  | { ok: true; frame: Frame; protocol: Protocol; /** the module speaks this protocol, says its REGISTER */ switchTo?: Protocol }
  | { ok: false; reason: string };

const REGISTER_TYPE = 2;

function isRegister(hex: string): boolean {
  return hex.length >= 4 && (parseInt(hex.slice(2, 4), 16) & 0x0f) === REGISTER_TYPE;
}

/**
 * Step 3: decodes with the module's protocol. A REGISTER frame carries its UDM version and is valid
 * under one protocol only: when it fails under the module's protocol but reads under the other, the
 * frame tells which protocol the module speaks, and a REGISTER of the module itself (entry 0) switches it.
 */
export function decodeFrame(module: IngestModule, hex: string): DecodedFrame {
  const result = decode(hex, module.protocol);
  if (result.ok) return { ok: true, frame: result.frame, protocol: module.protocol };
  if (isRegister(hex)) {
    const other: Protocol = module.protocol === 'UDM22' ? 'UDM23' : 'UDM22';
    const retried = decode(hex, other);
    if (retried.ok) return { ok: true, frame: retried.frame, protocol: other, ...(retried.frame.header.entryId === 0 && { switchTo: other }) };
  }
  return { ok: false, reason: result.reason };
}
