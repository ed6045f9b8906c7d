import { UNGUARDED } from './attempt-guard.js';
import type { AttemptGuard } from './attempt-guard.js';
import { LRUCache } from 'lru-cache';
import type { ModulesRepository } from '../storage/modules-repository.js';
import type { DevicesRepository, DeviceFlags } from '../storage/devices-repository.js';
import type { HistoryRow, MessagesRepository, TimeRange } from '../storage/messages-repository.js';
import type { RawMessage, RawMessagesRepository } from '../storage/raw-messages-repository.js';
import type { CatalogModule, Child, Device } from './types.js';
import type { ModuleService } from './modules.js';
import { keyMatches, normalizeSerial } from './modules.js';
import { deviceToken, readDeviceToken, tokenMatchesKey } from './credentials.js';
import type { DeviceTokenClaims } from './credentials.js';
import { badRequest, notFound, unauthorized } from './errors.js';
import { afterMs, beforeMs, beforeSeconds, parseAmount, parseInstant } from './time-range.js';

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

export type Flag = 'active' | 'watch' | 'status' | 'bidirval';

const KEY = /^([0-9A-F]{8}|[0-9A-F]{16})$/i;
const STATUS = /^[A-Z][A-Z0-9_]{0,31}$/;
const BIDIR = /^[0-9A-F]{16}$/i;

/**
 * What the token's key fingerprint covers: the key in force (the owner's device key, else the
 * printed key) and the PAC, so a new device key, or new catalog values, end every token issued before.
 */
const keyMaterial = (module: CatalogModule): string =>
  module.deviceKey === null ? `${module.key}:${module.pac}` : `device:${module.deviceKey}:${module.pac}`;

/** The flag's new value from the wire; an empty value clears bidirval and resets status. */
function flagValue(flag: Flag, value: string | undefined): DeviceFlags {
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

/** A device token whose signature was checked; its module is checked where it is used. */
export interface VerifiedToken {
  token: string;
  claims: DeviceTokenClaims;
}

/** History and recents: how many, and the exclusive bounds, as sent. */
export type PageParameters = { amount?: unknown; until?: unknown; after?: unknown };

/** The page's bounds from the wire; 400 naming the parameter when one is not valid. */
function pageRange(page: PageParameters): TimeRange {
  const limit = parseAmount('amount', page.amount);
  const before = beforeMs(parseInstant('until', page.until));
  const after = afterMs(parseInstant('after', page.after));
  return { limit, ...(before !== undefined && { before }), ...(after !== undefined && { after }) };
}

/**
 * Whether a `sn` sent with a device token of the module names one of its devices other than its
 * own: another module's serial is ignored (old clients hard-code `sn=2002`), as is the module's own.
 */
function tokenSelectsDevice(moduleSerial: string, sn: string | undefined): boolean {
  if (sn === undefined) return false;
  const serial = normalizeSerial(sn);
  return serial !== moduleSerial && serial.startsWith(`${moduleSerial}/`);
}

/** Device operations 16–26: the device token, and what a module may read and set of its own. */
export class DeviceService {
  /**
   * Tokens whose signature was verified, with the key material their fingerprint matched. Devices
   * send the same token on every call; this spares two HMACs per request without weakening the
   * check, since a module's current key material is compared on every request all the same.
   */
  private readonly verified = new LRUCache<string, { claims: DeviceTokenClaims; keyMaterial: string }>({ max: 10_000 });

  constructor(
    private readonly secret: string,
    private readonly repositories: {
      modules: ModulesRepository;
      devices: DevicesRepository;
      messages: MessagesRepository;
      rawMessages: RawMessagesRepository;
    },
    private readonly moduleService: ModuleService,
  ) {}

  /** crc.json: the module's token for its serial and key (8-hex key or 16-hex PAC, any case). */
  /** A device token for a serial and its key; `guard` throttles guessing (unknown serials count too). */
  async issueToken(sn: string | undefined, key: string | undefined, guard: AttemptGuard = UNGUARDED): Promise<string> {
    const serial = normalizeSerial(sn ?? '');
    if (serial === '') throw unauthorized('sn is required: the module serial');
    if (key === undefined || key.trim() === '') throw unauthorized('key is required: the 8-hex key or the 16-hex PAC');
    if (!KEY.test(key.trim())) throw unauthorized(`key must be 8 or 16 hex digits, got ${JSON.stringify(key)}`);
    await guard.allow();
    const module = await this.repositories.modules.bySerial(serial);
    if (!module || !keyMatches(module, key)) {
      await guard.failed();
      throw module ? unauthorized(`key does not match module ${serial}`) : notFound(`serial ${serial} not found`);
    }
    return deviceToken(this.secret, module.serial, module.registration, keyMaterial(module));
  }

  /**
   * The scope a device token grants; 401 when it is forged or from another secret, when the module
   * changed hands since it was issued, or when the module's device key changed.
   */
  async byToken(token: string): Promise<DeviceScope> {
    const verified = this.verifyToken(token);
    return this.confirm(verified, await this.repositories.modules.bySerial(verified.claims.serial));
  }

  /**
   * The token's signature checked (401 when forged, malformed or from another secret); whether its
   * module still grants it is for `confirm`, with the module as read at the moment of use.
   */
  verifyToken(token: string): VerifiedToken {
    const claims = this.verified.get(token)?.claims ?? readDeviceToken(this.secret, token);
    if (claims === undefined) throw unauthorized('invalid device token: get one from GET /iot/devices/crc.json');
    return { token, claims };
  }

  /** The scope a verified token grants with its module as read now; 401 when it grants none. */
  private confirm({ token, claims }: VerifiedToken, module: CatalogModule | undefined): DeviceScope {
    if (!module) throw unauthorized(`device token of ${claims.serial} names no module: get a new one`);
    if (claims.registration !== module.registration) {
      throw unauthorized(`device token of ${claims.serial} was issued before the module was last registered or unregistered: get a new one`);
    }
    if (!this.fingerprintMatches(token, claims, keyMaterial(module))) {
      throw unauthorized(`device token of ${claims.serial} is no longer valid (the module was re-keyed): get a new one`);
    }
    return { module, via: 'token' };
  }

  /** The token's key fingerprint against the module's current key material, remembered per token. */
  private fingerprintMatches(token: string, claims: DeviceTokenClaims, material: string): boolean {
    if (this.verified.get(token)?.keyMaterial === material) return true;
    if (!tokenMatchesKey(this.secret, claims, material)) {
      this.verified.delete(token);
      return false;
    }
    this.verified.set(token, { claims, keyMaterial: material });
    return true;
  }

  /** The scope developer credentials grant: the module `sn` names (a child's serial names its module). */
  async byDeveloper(accountId: number, sn: string | undefined): Promise<DeviceScope> {
    const serial = normalizeSerial(sn ?? '').split('/')[0]!;
    if (serial === '') throw badRequest('sn is required with developer credentials: it names the module');
    const { module } = await this.moduleService.owned(accountId, serial);
    return { module, via: 'developer' };
  }

  /**
   * The device a selector names within the scope, or undefined for the whole module. `id` wins; a
   * `sn` beside it must name that device or its module. Anything outside the scope is a 404 — except
   * a `sn` sent with a device token that names another module: the token decides the module, and
   * old clients hard-code `sn=2002`, so such a `sn` is ignored.
   */
  async select(scope: DeviceScope, selector: DeviceSelector): Promise<Device | undefined> {
    const moduleSerial = scope.module.serial;
    let sn = selector.sn === undefined ? undefined : normalizeSerial(selector.sn);
    if (sn !== undefined && scope.via === 'token' && !tokenSelectsDevice(moduleSerial, sn)) sn = undefined;
    if (selector.id !== undefined) {
      const device = await this.repositories.devices.byId(selector.id);
      if (!device || device.moduleSerial !== moduleSerial || (sn !== undefined && sn !== device.serial && sn !== moduleSerial)) {
        throw notFound(`device ${selector.id}${sn !== undefined ? ` (${sn})` : ''} not found`);
      }
      return device;
    }
    if (sn === undefined || sn === '' || sn === moduleSerial) return undefined;
    const device = await this.repositories.devices.bySerial(sn);
    if (!device || device.moduleSerial !== moduleSerial) throw notFound(`device ${sn} not found`);
    return device;
  }

  /** Whether the text is a device token signed with this server's secret (its module not checked yet). */
  isDeviceToken(token: string): boolean {
    return this.verified.has(token) || readDeviceToken(this.secret, token) !== undefined;
  }

  /**
   * History (`until`) and recents (`after`): newest first, bounds exclusive, at most `amount`. A
   * device selector narrows the module's messages to one device's. Each message comes as its stored
   * wire form (JSON text), or as its columns when it was stored without one.
   */
  async messages(scope: DeviceScope, selector: DeviceSelector, page: PageParameters): Promise<(string | HistoryRow)[]> {
    const range = pageRange(page);
    const device = await this.select(scope, selector);
    return this.repositories.messages.storedPage({ moduleSerial: scope.module.serial, ...(device && { deviceId: device.id }) }, range);
  }

  /**
   * `messages` for a verified device token, whose module is checked by the read itself: when the
   * whole module's messages are asked for (the usual call), the module and its page are read in one
   * statement and the page is shown only if the module, as read with it, still grants the token.
   * Answers as `messages` after `byToken` would, 401s first.
   */
  async messagesByToken(verified: VerifiedToken, selector: DeviceSelector, page: PageParameters): Promise<(string | HistoryRow)[]> {
    let range: TimeRange;
    try {
      range = pageRange(page);
    } catch (error) {
      await this.byToken(verified.token);
      throw error;
    }
    const serial = verified.claims.serial.toUpperCase();
    if (selector.id !== undefined || tokenSelectsDevice(serial, selector.sn)) return this.messages(await this.byToken(verified.token), selector, page);
    const read = await this.repositories.messages.moduleAndPage(serial, range);
    this.confirm(verified, read.module);
    return read.page;
  }

  /** Raw Sigfox uplinks of the module, newest first, strictly before `before` (compared in seconds). */
  async rawMessages(scope: DeviceScope, selector: DeviceSelector, page: { limit?: unknown; before?: unknown }): Promise<RawMessage[]> {
    const limit = parseAmount('limit', page.limit);
    const beforeS = beforeSeconds(parseInstant('before', page.before));
    await this.select(scope, selector);
    return this.repositories.rawMessages.history(scope.module.serial, { limit, ...(beforeS !== undefined && { beforeS }) });
  }

  /**
   * The devices behind the module, in index order, each with its newest message. A `sn` must name
   * the module or one of its devices.
   */
  async children(scope: DeviceScope, selector: DeviceSelector = {}): Promise<Child[]> {
    await this.select(scope, selector);
    const [devices, last] = await Promise.all([
      this.repositories.devices.ofModule(scope.module.serial),
      this.repositories.messages.lastOfChildren(scope.module.serial),
    ]);
    const byDevice = new Map(last.map((row) => [row.device_id, row]));
    return devices
      .filter((device) => device.index > 0)
      .map((device) => {
        const row = byDevice.get(device.id);
        const lastMessage = row
          ? { when: row.when_ms, frame: row.frame, code: row.code, custom: JSON.parse(row.custom) as Record<string, unknown>, lvl: row.lvl, station: row.station }
          : null;
        return { ...device, lastMessage };
      });
  }

  /** Removes every message and raw message of the module and its children; device state stays. */
  async clear(scope: DeviceScope, selector: DeviceSelector = {}): Promise<void> {
    await this.select(scope, selector);
    await this.repositories.messages.clearModule(scope.module.serial);
  }

  /** status, active, watch, bidirval on one device of the scope, named by `id` (and optionally `sn`). */
  async setFlag(scope: DeviceScope, flag: Flag, target: DeviceSelector, value: string | undefined): Promise<void> {
    if (target.id === undefined) throw badRequest('id is required: the device id');
    const flags = flagValue(flag, value);
    const device = await this.select(scope, target);
    await this.repositories.devices.setFlags(device!.id, flags);
  }

  /**
   * The module's own line of pacs.csv. The token names the module's current registration and key,
   * so a previous owner's token never reads it.
   */
  async pac(scope: DeviceScope, selector: DeviceSelector = {}): Promise<{ serial: string; pac: string }> {
    await this.select(scope, selector);
    return { serial: scope.module.serial, pac: scope.module.pac };
  }
}
