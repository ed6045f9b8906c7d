import { inChunks } from './event-loop-yield.js';
import type { AppsRepository, AppFields } from '../storage/apps-repository.js';
import type { App, ModuleListItem } from './types.js';
import type { ModuleService } from './modules.js';
import { badRequest, notFound } from './errors.js';
import { callbackUrlProblem } from './callback-url.js';
import { randomToken } from './credentials.js';

export interface AppInput {
  id?: number;
  name?: string;
  description?: string;
  /** Empty string clears it. */
  callbackurl?: string;
}

/** Modules attached or detached per statement: each one a short write, the event loop turning between. */
const BULK_CHUNK = 500;

export class AppService {
  constructor(
    private readonly apps: AppsRepository,
    private readonly modules: ModuleService,
    private readonly allowPrivateCallbacks: boolean,
  ) {}

  list(accountId: number): Promise<App[]> {
    return this.apps.listByAccount(accountId);
  }

  async owned(accountId: number, id: number): Promise<App> {
    const app = await this.apps.owned(accountId, id);
    if (!app) throw notFound(`app ${id} not found`);
    return app;
  }

  /** Creates when `id` is absent, updates the caller's app otherwise (the original's one operation). */
  async save(accountId: number, input: AppInput): Promise<App> {
    const fields = this.fields(input);
    if (input.id === undefined) {
      if (!fields.name) throw badRequest('name is required');
      // 128 bits of randomness each; the secret signs callbacks.
      return this.apps.create(
        accountId,
        { name: fields.name, description: fields.description ?? '', callbackUrl: fields.callbackUrl ?? null },
        randomToken(16),
        randomToken(32),
      );
    }
    if (fields.name === '') throw badRequest('name must not be empty');
    const app = await this.apps.update(accountId, input.id, fields);
    if (!app) throw notFound(`app ${input.id} not found`);
    return app;
  }

  async delete(accountId: number, id: number): Promise<void> {
    if (!(await this.apps.delete(accountId, id))) throw notFound(`app ${id} not found`);
  }

  async attach(accountId: number, appId: number, serials: string[]): Promise<void> {
    await this.owned(accountId, appId);
    await inChunks(await this.modules.requireOwned(accountId, serials), BULK_CHUNK, (chunk) => this.apps.attach(appId, chunk));
  }

  async detach(accountId: number, appId: number, serials: string[]): Promise<void> {
    await this.owned(accountId, appId);
    await inChunks(await this.modules.requireOwned(accountId, serials), BULK_CHUNK, (chunk) => this.apps.detach(appId, chunk));
  }

  async modulesOf(accountId: number, appId: number): Promise<ModuleListItem[]> {
    await this.owned(accountId, appId);
    return this.apps.modules(appId);
  }

  private fields(input: AppInput): Partial<AppFields> {
    const fields: Partial<AppFields> = {};
    if (input.name !== undefined) {
      fields.name = input.name.trim();
      if (fields.name.length > 200) throw badRequest('name must be at most 200 characters');
    }
    if (input.description !== undefined) {
      if (input.description.length > 2000) throw badRequest('description must be at most 2000 characters');
      fields.description = input.description;
    }
    if (input.callbackurl !== undefined) {
      const url = input.callbackurl.trim();
      if (url === '') fields.callbackUrl = null;
      else {
        const problem = callbackUrlProblem(url, this.allowPrivateCallbacks);
        if (problem) throw badRequest(problem);
        fields.callbackUrl = url;
      }
    }
    return fields;
  }
}
