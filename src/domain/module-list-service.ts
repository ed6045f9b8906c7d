import type { AppService } from './apps.js';
import type { ModuleFilter, ModuleListPage, ModuleListQuery } from './module-list.js';
import type { ModuleListRepository } from '../storage/module-list-repository.js';

export interface ModuleListDeps {
  list: ModuleListRepository;
  apps: AppService;
}

/** The module list, and the bulk actions that take its filter. */
export class ModuleListService {
  constructor(private readonly deps: ModuleListDeps) {}

  async page(accountId: number, query: ModuleListQuery): Promise<ModuleListPage> {
    await this.appsOwned(accountId, query);
    return this.deps.list.page(accountId, query);
  }

  async serials(accountId: number, filter: ModuleFilter): Promise<string[]> {
    await this.appsOwned(accountId, filter);
    return this.deps.list.serials(accountId, filter);
  }

  /** Attaches every module that matches (the picker's "select all that match"), in chunks. */
  async attachMatching(accountId: number, appId: number, filter: ModuleFilter): Promise<number> {
    await this.deps.apps.owned(accountId, appId);
    const serials = await this.serials(accountId, { ...filter, notApp: appId });
    for (let start = 0; start < serials.length; start += ATTACH_CHUNK) {
      await this.deps.apps.attach(accountId, appId, serials.slice(start, start + ATTACH_CHUNK));
    }
    return serials.length;
  }

  /** An app named in a filter must be the caller's, like anything else (404). */
  private async appsOwned(accountId: number, filter: ModuleFilter): Promise<void> {
    for (const id of [filter.app, filter.notApp]) if (id !== undefined) await this.deps.apps.owned(accountId, id);
  }
}

const ATTACH_CHUNK = 1000;
