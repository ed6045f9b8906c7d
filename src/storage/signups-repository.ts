import type { Kysely } from 'kysely';
import type { Database, SignupRow } from './schema.js';

export interface Signup {
  id: number;
  email: string;
  passwordHash: string;
  firstname: string | null;
  lastname: string | null;
  expires: Date;
  activated: Date | null;
}

const toSignup = (row: SignupRow): Signup => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  firstname: row.firstname,
  lastname: row.lastname,
  expires: new Date(row.expires_at),
  activated: row.activated_at === null ? null : new Date(row.activated_at),
});

export interface NewSignup {
  email: string;
  passwordHash: string;
  firstname: string | null;
  lastname: string | null;
  tokenHash: string;
  expiresAt: number;
}

/** Sign-ups waiting for their activation link. */
export class SignupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(signup: NewSignup): Promise<void> {
    await this.db
      .insertInto('signups')
      .values({
        email: signup.email,
        password_hash: signup.passwordHash,
        firstname: signup.firstname,
        lastname: signup.lastname,
        token_hash: signup.tokenHash,
        created_at: Date.now(),
        expires_at: signup.expiresAt,
      })
      .execute();
  }

  async byTokenHash(tokenHash: string): Promise<Signup | undefined> {
    const row = await this.db.selectFrom('signups').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && toSignup(row);
  }

  /** Sign-ups of the address that can still be activated. */
  async pendingCount(email: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('signups')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('email', '=', email)
      .where('activated_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Spends the link, and every other link of the same address; false when it was spent already or
   * has expired. The guarded update makes two concurrent clicks activate once.
   */
  async activate(signup: Signup, tokenHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('signups')
      .set({ activated_at: now })
      .where('token_hash', '=', tokenHash)
      .where('activated_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await this.db.updateTable('signups').set({ activated_at: now }).where('email', '=', signup.email).where('activated_at', 'is', null).execute();
    return true;
  }

  async deleteExpired(now: number, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('signups')
      .where('id', 'in', (db) => db.selectFrom('signups').select('id').where('expires_at', '<=', now).limit(limit))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
