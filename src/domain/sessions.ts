import type { SessionsRepository } from '../storage/sessions-repository.js';
import type { Account, Session } from './types.js';
import { randomSecret, secretHash } from './credentials.js';

export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
}

export interface SessionOrigin {
  address: string | null;
  userAgent: string | null;
}

/**
 * Dashboard sessions: a random id in an HttpOnly cookie, its hash in the database. A session ends
 * on sign-out, after `idleMs` without a request, `maxMs` after sign-in, and when the password
 * changes (every other session) or is reset (every session).
 */
export class SessionService {
  /** Touching on every request would be a write per request; moving the clock this often is enough. */
  private readonly touchEveryMs: number;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly policy: SessionPolicy,
  ) {
    this.touchEveryMs = Math.min(60_000, Math.floor(policy.idleMs / 10));
  }

  /** A new session for the account; `id` goes in the cookie and is never stored. */
  async start(account: Account, origin: SessionOrigin): Promise<{ id: string; session: Session }> {
    const id = randomSecret();
    const now = Date.now();
    const session = await this.sessions.create({
      idHash: secretHash(id),
      accountId: account.id,
      now,
      expiresAt: now + this.policy.maxMs,
      address: origin.address,
      userAgent: origin.userAgent?.slice(0, 200) ?? null,
    });
    return { id, session };
  }

  /** The live session the cookie's id names, and its account; undefined when unknown or expired. */
  async resolve(id: string): Promise<{ account: Account; session: Session } | undefined> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(id)) return undefined;
    const found = await this.sessions.withAccount(secretHash(id));
    if (!found) return undefined;
    const { session, account } = found;
    const now = Date.now();
    if (now >= this.expiry(session).getTime()) {
      await this.sessions.delete(session.idHash);
      return undefined;
    }
    if (now - session.lastUsed.getTime() >= this.touchEveryMs) {
      await this.sessions.touch(session.idHash, now);
      session.lastUsed = new Date(now);
    }
    return { account, session };
  }

  /** When the session ends if nothing else happens: idle timeout or absolute expiry, the earlier. */
  expiry(session: Session): Date {
    return new Date(Math.min(session.expires.getTime(), session.lastUsed.getTime() + this.policy.idleMs));
  }

  end(idHash: string): Promise<void> {
    return this.sessions.delete(idHash);
  }

  /** Ends every session of the account except `keep` (the caller's own); returns how many ended. */
  endAll(accountId: number, keep?: string): Promise<number> {
    return this.sessions.deleteForAccount(accountId, keep);
  }

  /** Removes sessions that can no longer be used, at most `limit` per call (the pruner repeats). */
  pruneExpired(limit: number): Promise<number> {
    const now = Date.now();
    return this.sessions.deleteExpired(now, now - this.policy.idleMs, limit);
  }
}
