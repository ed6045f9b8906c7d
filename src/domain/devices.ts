import type { AttemptGuard } from './attempt-guard.js';
import type { ModulesRepository } from '../storage/modules-repository.js';
import type { DevicesRepository } from '../storage/devices-repository.js';
import type { MessagesRepository } from '../storage/messages-repository.js';
import type { MessagePages, PageEntries, TimeRange } from '../storage/message-pages.js';
import type { RawMessage, RawMessagesRepository } from '../storage/raw-messages-repository.js';
import type { Child, Device } from './types.js';
import type { ModuleService } from './modules.js';
import { normalizeSerial } from './modules.js';
import { badRequest, notFound } from './errors.js';
import { beforeSeconds, parseAmount, parseInstant } from './time-range.js';
import { DeviceTokens } from './device-tokens.js';
import type { VerifiedToken } from './device-tokens.js';
import { tokenSelectsDevice } from './device-scope.js';
import type { DeviceScope, DeviceSelector } from './device-scope.js';
import { flagValue } from './flag-value.js';
import type { Flag } from './flag-value.js';
import { pageRange } from './page-range.js';
import type { PageParameters } from './page-range.js';

// Importers take these from here, beside the service.
export type { DeviceScope, DeviceSelector } from './device-scope.js';
export type { VerifiedToken } from './device-tokens.js';
export type { Flag } from './flag-value.js';
export type { PageParameters } from './page-range.js';

/** Device operations 16–26: the device token, and what a module may read and set of its own. */
export class DeviceService {
  /** The device token: issued, verified and confirmed against its module (device-tokens.ts). */
  private readonly tokens: DeviceTokens;

  constructor(
    secret: string,
    private readonly repositories: {
      modules: ModulesRepository;
      devices: DevicesRepository;
      messages: MessagesRepository;
      messagePages: MessagePages;
      rawMessages: RawMessagesRepository;
    },
    private readonly moduleService: ModuleService,
  ) {
    this.tokens = new DeviceTokens(secret, repositories.modules);
  }

  /** crc.json: a device token for a serial and its key (DeviceTokens.issueToken). */
  issueToken(sn: string | undefined, key: string | undefined, guard?: AttemptGuard): Promise<string> {
    return this.tokens.issueToken(sn, key, guard);
  }

  /** The scope a device token grants; 401 when it grants none (DeviceTokens.byToken). */
  byToken(token: string): Promise<DeviceScope> {
    return this.tokens.byToken(token);
  }

  /** The token's signature checked, its module not yet (DeviceTokens.verifyToken). */
  verifyToken(token: string): VerifiedToken {
    return this.tokens.verifyToken(token);
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
    return this.tokens.isDeviceToken(token);
  }

  /**
   * History (`until`) and recents (`after`): newest first, bounds exclusive, at most `amount`. A
   * device selector narrows the module's messages to one device's. The messages come as their
   * stored wire forms (JSON text), or as their columns when stored without one (see `PageEntries`).
   */
  async messages(scope: DeviceScope, selector: DeviceSelector, page: PageParameters): Promise<PageEntries> {
    const range = pageRange(page);
    const device = await this.select(scope, selector);
    return this.repositories.messagePages.storedPage({ moduleSerial: scope.module.serial, ...(device && { deviceId: device.id }) }, range);
  }

  /**
   * `messages` for a verified device token, whose module is checked by the read itself: when the
   * whole module's messages are asked for (the usual call), the module and its page are read in one
   * statement and the page is shown only if the module, as read with it, still grants the token.
   * Answers as `messages` after `byToken` would, 401s first.
   */
  async messagesByToken(verified: VerifiedToken, selector: DeviceSelector, page: PageParameters): Promise<PageEntries> {
    let range: TimeRange;
    try {
      range = pageRange(page);
    } catch (error) {
      await this.byToken(verified.token);
      throw error;
    }
    const serial = verified.claims.serial.toUpperCase();
    if (selector.id !== undefined || tokenSelectsDevice(serial, selector.sn)) return this.messages(await this.byToken(verified.token), selector, page);
    const read = await this.repositories.messagePages.moduleAndPage(serial, range);
    this.tokens.confirm(verified, read.module);
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
