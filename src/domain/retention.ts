import { badRequest } from './errors.js';
import type { ModuleService } from './modules.js';
import type { ModuleRetention, RetentionRepository } from '../storage/retention-repository.js';

/** Longest retention an owner may choose, in days (a hundred years). */
export const MAX_RETENTION_DAYS = 36_500;

/** What the owner chose for a module and what is in force: the choice, else the operator's default (0: forever). */
export interface RetentionView {
  serial: string;
  messages_days: number | null;
  raw_days: number | null;
  effective: { messages_days: number; raw_days: number };
}

/** A module owner's retention choice; `null` means the operator's default. */
export class RetentionService {
  constructor(
    private readonly repository: RetentionRepository,
    private readonly modules: ModuleService,
    private readonly defaults: { messagesDays: number; rawDays: number },
  ) {}

  async ofModule(accountId: number, sn: string): Promise<RetentionView> {
    const { module } = await this.modules.owned(accountId, sn);
    return this.view(module.serial, await this.repository.ofModule(module.serial));
  }

  async setModule(accountId: number, sn: string, choice: ModuleRetention): Promise<RetentionView> {
    for (const [name, days] of [['messages_days', choice.messagesDays], ['raw_days', choice.rawDays]] as const) {
      if (days !== null && (days < 0 || days > MAX_RETENTION_DAYS)) {
        throw badRequest(`${name} must be from 0 (keep forever) to ${MAX_RETENTION_DAYS} days, or empty for the operator's default; got ${days}`);
      }
    }
    const { module } = await this.modules.owned(accountId, sn);
    await this.repository.setModule(module.serial, choice);
    return this.view(module.serial, choice);
  }

  private view(serial: string, choice: ModuleRetention): RetentionView {
    return {
      serial,
      messages_days: choice.messagesDays,
      raw_days: choice.rawDays,
      effective: { messages_days: choice.messagesDays ?? this.defaults.messagesDays, raw_days: choice.rawDays ?? this.defaults.rawDays },
    };
  }
}
