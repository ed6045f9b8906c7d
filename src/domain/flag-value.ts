import type { DeviceFlags } from '../storage/devices-repository.js';
import { badRequest } from './errors.js';

/** The flags of a device a module may set (`DeviceService.setFlag`). */
export type Flag = 'active' | 'watch' | 'status' | 'bidirval';

const STATUS = /^[A-Z][A-Z0-9_]{0,31}$/;
const BIDIR = /^[0-9A-F]{16}$/i;

/** The flag's new value from the wire; an empty value clears bidirval and resets status. */
export function flagValue(flag: Flag, value: string | undefined): DeviceFlags {
  if (value === undefined) throw badRequest('value is required');
  const text = value.trim();
  if (flag === 'active' || flag === 'watch') {
    if (!/^(true|false|1|0)$/i.test(text)) throw badRequest(`value must be true, false, 1 or 0 for ${flag}, got ${JSON.stringify(value)}`);
    const on = /^(true|1)$/i.test(text);
    return flag === 'active' ? { active: on } : { watched: on };
  }
  if (flag === 'status') {
    if (text === '') return { status: 'UNDEFINED' };
    // Statuses are upper-case identifiers; clients send them in any case.
    const status = text.toUpperCase();
    if (!STATUS.test(status)) {
      throw badRequest(`value must be a status identifier (letters, digits, _; starting with a letter; at most 32), got ${JSON.stringify(value)}`);
    }
    return { status };
  }
  if (text === '') return { bidirval: null };
  if (!BIDIR.test(text)) throw badRequest(`value must be 16 hex digits (the 8-byte downlink) or empty, got ${JSON.stringify(value)}`);
  return { bidirval: text.toUpperCase() };
}
