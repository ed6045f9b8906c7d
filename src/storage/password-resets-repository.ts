import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface PasswordReset {
  accountId: number;
  expires: Date;
  used: Date | null;
}

/** Single-use password reset links, by the SHA-256 of their token. */
export class PasswordResetsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(tokenHash: string, accountId: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('password_resets')
      .values({ token_hash: tokenHash, account_id: accountId, created_at: Date.now(), expires_at: expiresAt })
      .execute();
  }

  async byTokenHash(tokenHash: string): Promise<PasswordReset | undefined> {
    const row = await this.db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && { accountId: row.account_id, expires: new Date(row.expires_at), used: row.used_at === null ? null : new Date(row.used_at) };
  }

  /**
   * Spends the link; false when it was already spent. The guarded update makes two concurrent
   * uses of one link succeed once. A reset spends every other link of the account too.
   */
  async use(tokenHash: string, accountId: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await this.db.updateTable('password_resets').set({ used_at: now }).where('account_id', '=', accountId).where('used_at', 'is', null).execute();
    return true;
  }

  async pendingCount(accountId: number, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('password_resets')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('password_resets')
      .where('token_hash', 'in', (db) => db.selectFrom('password_resets').select('token_hash').where('expires_at', '<=', now).limit(limit))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
