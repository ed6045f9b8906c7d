import { UNGUARDED } from './attempt-guard.js';
import type { AttemptGuard } from './attempt-guard.js';
import { LRUCache } from 'lru-cache';
import type { ModulesRepository } from '../storage/modules-repository.js';
import type { CatalogModule } from './types.js';
import { keyMatches, normalizeSerial } from './modules.js';
import { deviceToken, readDeviceToken, tokenMatchesKey } from './credentials.js';
import type { DeviceTokenClaims } from './credentials.js';
import { notFound, unauthorized } from './errors.js';
import type { DeviceScope } from './device-scope.js';

const KEY = /^([0-9A-F]{8}|[0-9A-F]{16})$/i;

/**
 * What the token's key fingerprint covers: the key in force (the owner's device key, else the
 * printed key) and the PAC, so a new device key, or new catalog values, end every token issued before.
 */
const keyMaterial = (module: CatalogModule): string =>
  module.deviceKey === null ? `${module.key}:${module.pac}` : `device:${module.deviceKey}:${module.pac}`;

/** A device token whose signature was checked; its module is checked where it is used. */
export interface VerifiedToken {
  token: string;
  claims: DeviceTokenClaims;
}

/** Device operation 16 and the device token's checks, for DeviceService (devices.ts). */
export class DeviceTokens {
  /**
   * Tokens whose signature was verified, with the key material their fingerprint matched. Devices
   * send the same token on every call; this spares two HMACs per request without weakening the
   * check, since a module's current key material is compared on every request all the same.
   */
  private readonly verified = new LRUCache<string, { claims: DeviceTokenClaims; keyMaterial: string }>({ max: 10_000 });

  constructor(
    private readonly secret: string,
    private readonly modules: ModulesRepository,
  ) {}

  /** crc.json: the module's token for its serial and key (8-hex key or 16-hex PAC, any case). */
  /** A device token for a serial and its key; `guard` throttles guessing (unknown serials count too). */
  async issueToken(sn: string | undefined, key: string | undefined, guard: AttemptGuard = UNGUARDED): Promise<string> {
    const serial = normalizeSerial(sn ?? '');
    if (serial === '') throw unauthorized('sn is required: the module serial');
    if (key === undefined || key.trim() === '') throw unauthorized('key is required: the 8-hex key or the 16-hex PAC');
    if (!KEY.test(key.trim())) throw unauthorized(`key must be 8 or 16 hex digits, got ${JSON.stringify(key)}`);
    await guard.allow();
    const module = await this.modules.bySerial(serial);
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
    return this.confirm(verified, await this.modules.bySerial(verified.claims.serial));
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
  confirm({ token, claims }: VerifiedToken, module: CatalogModule | undefined): DeviceScope {
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

  /** Whether the text is a device token signed with this server's secret (its module not checked yet). */
  isDeviceToken(token: string): boolean {
    return this.verified.has(token) || readDeviceToken(this.secret, token) !== undefined;
  }
}
