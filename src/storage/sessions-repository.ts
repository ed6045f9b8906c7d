import type { Kysely } from 'kysely';
import type { Account, Session } from '../domain/types.js';
import type { Database, SessionRow } from './schema.js';
import { JOINED_ACCOUNT, joinedAccount } from './accounts-repository.js';

const toSession = (row: SessionRow): Session => ({
  idHash: row.id_hash,
  accountId: row.account_id,
  created: new Date(row.created_at),
  lastUsed: new Date(row.last_used_at),
  expires: new Date(row.expires_at),
});

export interface NewSession {
  idHash: string;
  accountId: number;
  now: number;
  expiresAt: number;
  address: string | null;
  userAgent: string | null;
}

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(session: NewSession): Promise<Session> {
    const row = await this.db
      .insertInto('sessions')
      .values({
        id_hash: session.idHash,
        account_id: session.accountId,
        created_at: session.now,
        last_used_at: session.now,
        expires_at: session.expiresAt,
        address: session.address,
        user_agent: session.userAgent,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toSession(row);
  }

  /** The session and its account, in one query: a dashboard request costs one read for its credential. */
  async withAccount(idHash: string): Promise<{ session: Session; account: Account } | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .selectAll('sessions')
      .select(JOINED_ACCOUNT)
      .where('sessions.id_hash', '=', idHash)
      .executeTakeFirst();
    return row && { session: toSession(row), account: joinedAccount(row) };
  }

  /** Moves the idle clock forward; the `<` guard keeps concurrent requests from moving it back. */
  async touch(idHash: string, now: number): Promise<void> {
    await this.db.updateTable('sessions').set({ last_used_at: now }).where('id_hash', '=', idHash).where('last_used_at', '<', now).execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  /** Every session of the account, but the one kept (the caller's own, after a password change). */
  async deleteForAccount(accountId: number, keep?: string): Promise<number> {
    let query = this.db.deleteFrom('sessions').where('account_id', '=', accountId);
    if (keep !== undefined) query = query.where('id_hash', '!=', keep);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Sessions past their absolute expiry or idle since `idleBefore`, at most `limit` of them. */
  async deleteExpired(now: number, idleBefore: number, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('id_hash', 'in', (db) =>
        db
          .selectFrom('sessions')
          .select('id_hash')
          .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_used_at', '<', idleBefore)]))
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
