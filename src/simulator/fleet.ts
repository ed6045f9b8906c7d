import { createHash } from 'node:crypto';
import { parseProtocol } from '../protocol/udm/index.js';
import type { ModuleSpec } from './simulated-module.js';

const HEX_SERIAL = /^[0-9A-F]{1,8}$/;

/** Every third module (the first included) is a gateway with one to three children. */
function children(index: number): number {
  return index % 3 === 0 ? 1 + ((index / 3) % 3) : 0;
}

/**
 * `C0FE,BEEF:UDM22` → module specs; a serial without a protocol speaks UDM23. Throws on a malformed
 * entry, naming it.
 */
export function parseModules(list: string): ModuleSpec[] {
  const specs = list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item, index) => {
      const [rawSerial = '', rawProtocol] = item.split(':');
      const serial = rawSerial.toUpperCase();
      if (!HEX_SERIAL.test(serial)) throw new Error(`module "${item}": the serial must be 1 to 8 hex digits`);
      const protocol = rawProtocol === undefined ? 'UDM23' : parseProtocol(rawProtocol);
      if (!protocol) throw new Error(`module "${item}": the protocol must be UDM22 or UDM23`);
      return { serial, protocol, children: children(index) };
    });
  if (specs.length === 0) throw new Error('--modules names no module');
  return specs;
}

/** `count` generated modules F0000001, F0000002 …; every fourth speaks UDM22. */
export function generatedModules(count: number): ModuleSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    serial: (0xf0000001 + index).toString(16).toUpperCase(),
    protocol: index % 4 === 3 ? ('UDM22' as const) : ('UDM23' as const),
    children: children(index),
  }));
}

/** A catalog CSV for the modules (`snsr catalog import`), keys and PACs derived from each serial. */
export function catalogCsv(modules: ModuleSpec[]): string {
  const lines = modules.map((module) => {
    const digest = createHash('sha256').update(`snsr-simulator:${module.serial}`).digest('hex').toUpperCase();
    return `${module.serial};${digest.slice(0, 8)};${digest.slice(8, 24)};${module.protocol}`;
  });
  return `SERIAL;KEY;PAC;PROTOCOL\n${lines.join('\n')}\n`;
}
