import { inChunks } from './event-loop-yield.js';
import { randomBytes } from 'node:crypto';
import type { ModulesRepository } from '../storage/modules-repository.js';
import type { DevicesRepository } from '../storage/devices-repository.js';
import type { CatalogModule, Device, ModuleListItem } from './types.js';
import { badRequest, notFound } from './errors.js';

export interface RegistrationResult {
  registered: string[];
  not_found: string[];
  already_registered: string[];
  invalid_key: string[];
}

/**
 * A module's key, any case: the device key its owner set, or while there is none the 8-hex key
 * printed on the packaging or its 16-hex PAC. A device key replaces both, so what the previous
 * owner knew stops working.
 */
export function keyMatches(module: CatalogModule, key: string): boolean {
  const candidate = key.trim().toUpperCase();
  if (module.deviceKey !== null) return candidate === module.deviceKey;
  return candidate === module.key || candidate === module.pac;
}

const DEVICE_KEY = /^[0-9A-F]{8}$/;

export const normalizeSerial = (serial: string): string => serial.trim().toUpperCase();

/** Registrations read and claimed together. */
const REGISTRATION_CHUNK = 200;

export class ModuleService {
  constructor(
    private readonly modules: ModulesRepository,
    private readonly devices: DevicesRepository,
  ) {}

  /**
   * The spec's state table, in its order: unknown serial, held by anyone, wrong key, then
   * registered. Requests go in chunks, each read in one query and claimed in one transaction, so
   * that a fleet registered in one request costs a few statements per chunk, not per module.
   */
  async register(accountId: number, requests: { serial: string; key: string }[]): Promise<RegistrationResult> {
    const result: RegistrationResult = { registered: [], not_found: [], already_registered: [], invalid_key: [] };
    await inChunks(requests, REGISTRATION_CHUNK, async (chunk) => {
      const serials = chunk.map((request) => normalizeSerial(request.serial));
      const modules = new Map((await this.modules.bySerials([...new Set(serials)])).map((module) => [module.serial, module]));
      // Each serial at most once per registration: a repeat finds it held, as one after the other would.
      const wanted = new Set<string>();
      const outcome = chunk.map((request, i) => {
        const serial = serials[i]!;
        const module = modules.get(serial);
        if (!module) return 'not_found' as const;
        if (module.accountId !== null || wanted.has(serial)) return 'already_registered' as const;
        if (!keyMatches(module, request.key)) return 'invalid_key' as const;
        wanted.add(serial);
        return 'claim' as const;
      });
      const claimed = await this.modules.register([...wanted], accountId);
      outcome.forEach((state, i) => {
        const serial = serials[i]!;
        if (state !== 'claim') result[state].push(serial);
        // Another registration won it meanwhile.
        else result[claimed.has(serial) ? 'registered' : 'already_registered'].push(serial);
      });
    });
    return result;
  }

  /** The caller's module named by serial, and optionally by its device id too. */
  async owned(accountId: number, sn: string, id?: number): Promise<{ module: CatalogModule; device: Device }> {
    const serial = normalizeSerial(sn);
    const module = await this.modules.bySerial(serial);
    const device = module?.accountId === accountId ? await this.devices.bySerial(serial) : undefined;
    if (!module || !device || (id !== undefined && device.id !== id)) {
      throw notFound(`module ${serial}${id !== undefined ? ` with id ${id}` : ''} not found`);
    }
    return { module, device };
  }

  async unregister(accountId: number, id: number, sn: string): Promise<void> {
    const { module } = await this.owned(accountId, sn, id);
    await this.modules.unregister(module.serial, accountId);
  }

  /**
   * Sets a new device key on a module the account holds: the given 8 hex digits, or random ones.
   * Device tokens minted before, and `crc.json` with the old key or the PAC, stop working.
   */
  async rekey(accountId: number, sn: string, key?: string): Promise<{ serial: string; key: string }> {
    const serial = normalizeSerial(sn);
    if (serial === '') throw badRequest('sn is required: the module serial');
    const newKey = key === undefined || key.trim() === '' ? randomBytes(4).toString('hex').toUpperCase() : key.trim().toUpperCase();
    if (!DEVICE_KEY.test(newKey)) throw badRequest(`key must be 8 hex digits, got ${JSON.stringify(key)}`);
    if (!(await this.modules.setDeviceKey(serial, accountId, newKey))) throw notFound(`module ${serial} not found`);
    return { serial, key: newKey };
  }

  list(accountId: number): Promise<ModuleListItem[]> {
    return this.modules.listByAccount(accountId);
  }

  pacs(accountId: number): Promise<{ serial: string; pac: string }[]> {
    return this.modules.pacsByAccount(accountId);
  }

  /** Serials normalized; 404 naming every one the account does not hold. */
  async requireOwned(accountId: number, serials: string[]): Promise<string[]> {
    const wanted = [...new Set(serials.map(normalizeSerial))];
    if (wanted.some((serial) => serial === '')) throw badRequest('serials must not contain empty strings');
    // Read in chunks: one query naming 10,000 serials holds SQLite (and the event loop) for long.
    const found: CatalogModule[] = [];
    await inChunks(wanted, 500, async (chunk) => void found.push(...(await this.modules.bySerials(chunk))));
    const owned = new Set(found.filter((m) => m.accountId === accountId).map((m) => m.serial));
    const missing = wanted.filter((serial) => !owned.has(serial));
    if (missing.length > 0) throw notFound(`modules not found: ${missing.join(', ')}`);
    return wanted;
  }
}
