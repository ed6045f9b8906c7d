import type { DeviceLabels, LabelsRepository } from '../storage/labels-repository.js';
import { badRequest, notFound } from './errors.js';
import { MAX_TAGS, parseLabelsPatch, parseTags } from './labels.js';
import type { LabelsPatch } from './labels.js';
import { normalizeSerial } from './modules.js';
import type { ModuleService } from './modules.js';

export type { DeviceLabels };

/** The owner's names, tags and notes on modules and their child devices. */
export class LabelService {
  constructor(
    private readonly labels: LabelsRepository,
    private readonly modules: ModuleService,
  ) {}

  /** The module's and its children's labels; 404 when the module is not the caller's. */
  async ofModule(accountId: number, sn: string): Promise<DeviceLabels[]> {
    const { module } = await this.modules.owned(accountId, sn);
    return this.labels.ofModule(module.serial);
  }

  /** `sn` names the module (`C0FE`) or one of its children (`C0FE/1`). */
  async set(accountId: number, sn: string, patch: LabelsPatch): Promise<DeviceLabels> {
    const serial = normalizeSerial(sn);
    const parsed = parseLabelsPatch(patch);
    const devices = await this.ofModule(accountId, serial.split('/')[0]!);
    const device = devices.find((d) => d.serial === serial);
    if (!device) throw notFound(`device ${serial} not found`);
    await this.labels.set(device.id, parsed);
    return { ...device, ...parsed };
  }

  /** Adds and removes tags on the caller's modules (each must be the caller's, else 404 and nothing changes). */
  async retag(
    accountId: number,
    serials: string[],
    change: { add?: string[] | string; remove?: string[] | string },
    onProgress?: (done: number, total: number) => void,
  ): Promise<{ modules: number; changed: number }> {
    const add = parseTags(change.add ?? []);
    const remove = new Set(parseTags(change.remove ?? []));
    if (add.length === 0 && remove.size === 0) throw badRequest('add or remove: name at least one tag');
    const owned = await this.modules.requireOwned(accountId, serials.map(normalizeSerial));
    const changed = await this.labels.retag(
      owned,
      (tags) => {
        const next = [...new Set([...tags.filter((tag) => !remove.has(tag)), ...add])];
        if (next.length > MAX_TAGS) throw badRequest(`tags: at most ${MAX_TAGS} per device`);
        return next;
      },
      onProgress,
    );
    return { modules: owned.length, changed };
  }
}
