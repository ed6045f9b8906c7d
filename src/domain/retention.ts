import { badRequest, notFound } from './errors.js';
import type { AppService } from './apps.js';
import type { ModuleService } from './modules.js';
import type { AppRetention, Choice, ModuleRetention, RetentionChoices, RetentionRepository } from '../storage/retention-repository.js';

/** Longest retention an owner may choose, in days (a hundred years). */
export const MAX_RETENTION_DAYS = 36_500;

/** Where the retention in force comes from: the module's own choice, an attached app's, or the operator. */
export type RetentionSource = { from: 'module' } | { from: 'app'; app: number; name: string } | { from: 'default' };

/** What the owner chose for a module and what is in force, with where it comes from (0: forever). */
export interface RetentionView {
  serial: string;
  messages_days: number | null;
  raw_days: number | null;
  effective: { messages_days: number; raw_days: number };
  source: { messages_days: RetentionSource; raw_days: RetentionSource };
}

/** What an app's owner chose for the modules attached to it, beside the operator's defaults. */
export interface AppRetentionView {
  id: number;
  messages_days: number | null;
  raw_days: number | null;
  defaults: { messages_days: number; raw_days: number };
}

/** The longer of two retentions in days, 0 (forever) being longest of all. */
export function longer(a: number, b: number): number {
  return a === 0 || b === 0 ? 0 : Math.max(a, b);
}

/**
 * The retention each module with a choice keeps, by the precedence: the module's own choice wins;
 * else the longest of its apps' choices (keeping what someone asked for is the safe side). Modules
 * absent from the answer follow the operator's default.
 */
export function effectiveChoices(choices: RetentionChoices): Choice[] {
  const days = new Map<string, number>();
  for (const { serial, days: chosen } of choices.apps) {
    const known = days.get(serial);
    days.set(serial, known === undefined ? chosen : longer(known, chosen));
  }
  for (const { serial, days: chosen } of choices.modules) days.set(serial, chosen);
  return [...days].map(([serial, chosen]) => ({ serial, days: chosen }));
}

function checkRange(choice: ModuleRetention): void {
  for (const [name, days] of [['messages_days', choice.messagesDays], ['raw_days', choice.rawDays]] as const) {
    if (days !== null && (!Number.isSafeInteger(days) || days < 0 || days > MAX_RETENTION_DAYS)) {
      throw badRequest(`${name} must be from 0 (keep forever) to ${MAX_RETENTION_DAYS} days, or empty for the operator's default; got ${days}`);
    }
  }
}

/** Owners' retention choices per module and per app, over the operator's defaults. */
export class RetentionService {
  constructor(
    private readonly repository: RetentionRepository,
    private readonly modules: ModuleService,
    private readonly apps: AppService,
    private readonly defaults: { messagesDays: number; rawDays: number },
  ) {}

  async ofModule(accountId: number, sn: string): Promise<RetentionView> {
    const { module } = await this.modules.owned(accountId, sn);
    return this.view(module.serial, await this.repository.ofModule(module.serial));
  }

  async setModule(accountId: number, sn: string, choice: ModuleRetention): Promise<RetentionView> {
    checkRange(choice);
    const { module } = await this.modules.owned(accountId, sn);
    await this.repository.setModule(module.serial, choice);
    return this.view(module.serial, choice);
  }

  async ofApp(accountId: number, appId: number): Promise<AppRetentionView> {
    await this.apps.owned(accountId, appId);
    return this.appView(appId, await this.repository.ofApp(appId));
  }

  async setApp(accountId: number, appId: number, choice: ModuleRetention): Promise<AppRetentionView> {
    checkRange(choice);
    await this.apps.owned(accountId, appId);
    await this.repository.setApp(appId, choice);
    return this.appView(appId, choice);
  }

  /** The owner of any app, for the operator's CLI, which then acts as that owner. */
  async appOwner(appId: number): Promise<number> {
    const owner = await this.repository.appOwner(appId);
    if (owner === undefined) throw notFound(`app ${appId} not found`);
    return owner;
  }

  private appView(id: number, choice: ModuleRetention): AppRetentionView {
    return { id, messages_days: choice.messagesDays, raw_days: choice.rawDays, defaults: { messages_days: this.defaults.messagesDays, raw_days: this.defaults.rawDays } };
  }

  private async view(serial: string, choice: ModuleRetention): Promise<RetentionView> {
    const apps = await this.repository.appsOfModule(serial);
    const messages = this.resolve(choice.messagesDays, apps, (app) => app.messagesDays, this.defaults.messagesDays);
    const raw = this.resolve(choice.rawDays, apps, (app) => app.rawDays, this.defaults.rawDays);
    return {
      serial,
      messages_days: choice.messagesDays,
      raw_days: choice.rawDays,
      effective: { messages_days: messages.days, raw_days: raw.days },
      source: { messages_days: messages.source, raw_days: raw.source },
    };
  }

  /** One kind's retention in force by the precedence of `effectiveChoices`, and which choice set it. */
  private resolve(own: number | null, apps: AppRetention[], pick: (app: AppRetention) => number | null, fallback: number): { days: number; source: RetentionSource } {
    if (own !== null) return { days: own, source: { from: 'module' } };
    let best: { days: number; app: AppRetention } | undefined;
    for (const app of apps) {
      const days = pick(app);
      if (days === null) continue;
      // Ties keep the oldest app (lowest id), so the answer is stable.
      if (best === undefined || (longer(best.days, days) === days && days !== best.days)) best = { days, app };
    }
    if (best) return { days: best.days, source: { from: 'app', app: best.app.appId, name: best.app.name } };
    return { days: fallback, source: { from: 'default' } };
  }
}
