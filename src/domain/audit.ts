import type { AuditRepository } from '../storage/audit-repository.js';
import type { AuditEntry, Credential } from './types.js';
import { badRequest } from './errors.js';

/**
 * What the audit log records. Names are `<subject>.<verb>`; a failure ends in `.failed`.
 * `module.rekey` is recorded by the key rotation route.
 */
export const AUDIT_ACTIONS = [
  'signin',
  'signin.failed',
  'signout',
  'password.change',
  'password.change.failed',
  'password.reset.request',
  'password.reset',
  'token.regenerate',
  'key.create',
  'key.revoke',
  'account.activate',
  'git.alias',
  'module.register',
  'module.unregister',
  'module.rekey',
  'module.label',
  'module.tag',
  'module.retention',
  'app.create',
  'app.update',
  'app.delete',
  'app.retention',
  'app.attach',
  'app.detach',
  'app.test',
  'delivery.retry',
  'delivery.retry_many',
  'alert.ack',
  'alert.settings',
  'alert.email',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_DEFAULT_LIMIT = 20;
export const AUDIT_MAX_LIMIT = 1000;

/** Who acted, and how: `operator` is the CLI, acting for the account. */
export type Actor = Credential | { kind: 'operator' };

export interface AuditEvent {
  accountId: number;
  action: AuditAction;
  actor: Actor | undefined;
  address: string | null;
  detail?: Record<string, unknown> | undefined;
}

/** The credential's name as stored: `session`, `password`, `token`, `key` (with the key's name), `link`, `operator`. */
export function credentialName(actor: Actor | undefined): { credential: string | null; keyName: string | null } {
  if (!actor) return { credential: null, keyName: null };
  return { credential: actor.kind, keyName: actor.kind === 'key' ? actor.name : null };
}

export class AuditService {
  constructor(private readonly log: AuditRepository) {}

  record(event: AuditEvent): Promise<void> {
    const detail = event.detail && Object.keys(event.detail).length > 0 ? event.detail : null;
    return this.log.insert({ accountId: event.accountId, action: event.action, address: event.address, detail, ...credentialName(event.actor) });
  }

  /** Newest first; `before` is an entry id (the next page starts below the oldest one shown). */
  list(accountId: number, query: { limit?: number | undefined; before?: number | undefined } = {}): Promise<AuditEntry[]> {
    const limit = query.limit ?? AUDIT_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_MAX_LIMIT) {
      throw badRequest(`limit must be an integer from 1 to ${AUDIT_MAX_LIMIT}, got ${limit}`);
    }
    if (query.before !== undefined && (!Number.isInteger(query.before) || query.before < 1)) {
      throw badRequest(`before must be a positive entry id, got ${query.before}`);
    }
    return this.log.list(accountId, limit, query.before);
  }

  /** Deletes at most `limit` entries older than `retentionMs`; the pruner repeats while it gets `limit`. */
  prune(retentionMs: number, limit: number): Promise<number> {
    return this.log.deleteOlderThan(Date.now() - retentionMs, limit);
  }
}
