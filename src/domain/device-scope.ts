import type { CatalogModule } from './types.js';
import { normalizeSerial } from './modules.js';

/** The module a device request may see: its own device and its children. */
export interface DeviceScope {
  module: CatalogModule;
  /** How the caller proved it may: the module's device token, or developer credentials of its owner. */
  via: 'token' | 'developer';
}

/** A device named by id and/or serial; neither means the whole module. */
export interface DeviceSelector {
  id?: number | undefined;
  sn?: string | undefined;
}

/**
 * Whether a `sn` sent with a device token of the module names one of its devices other than its
 * own: another module's serial is ignored (old clients hard-code `sn=2002`), as is the module's own.
 */
export function tokenSelectsDevice(moduleSerial: string, sn: string | undefined): boolean {
  if (sn === undefined) return false;
  const serial = normalizeSerial(sn);
  return serial !== moduleSerial && serial.startsWith(`${moduleSerial}/`);
}
