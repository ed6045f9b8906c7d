import type { Kysely } from 'kysely';
import type { Account } from '../domain/types.js';
import type { AccountRow, Database } from './schema.js';

export const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  email: row.email,
  passwordHash: row.password_hash,
  apiKeySalt: row.api_key_salt,
  gitAlias: row.git_alias,
  createdAt: new Date(row.created_at),
  firstname: row.firstname,
  lastname: row.lastname,
});

/**
 * The account's columns in a query that joins `accounts` (its `created_at` renamed so it cannot
 * clash), and the account they make: a credential and its account come back in one read.
 */
export const JOINED_ACCOUNT = [
  'accounts.email',
  'accounts.password_hash',
  'accounts.api_key_salt',
  'accounts.git_alias',
  'accounts.created_at as account_created_at',
  'accounts.firstname',
  'accounts.lastname',
] as const;

export const joinedAccount = (row: Omit<AccountRow, 'id' | 'created_at'> & { account_id: number; account_created_at: number }): Account =>
  toAccount({ ...row, id: row.account_id, created_at: row.account_created_at });

export interface NewAccount {
  email: string;
  passwordHash: string;
  apiKeySalt: string;
  firstname?: string | null;
  lastname?: string | null;
}

export class AccountsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async byEmail(email: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    return row && toAccount(row);
  }

  async byId(id: number): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  /** Undefined when the email is taken. */
  async create(account: NewAccount): Promise<Account | undefined> {
    const row = await this.db
      .insertInto('accounts')
      .values({
        email: account.email.toLowerCase(),
        password_hash: account.passwordHash,
        api_key_salt: account.apiKeySalt,
        firstname: account.firstname ?? null,
        lastname: account.lastname ?? null,
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async update(id: number, changes: { passwordHash?: string; apiKeySalt?: string; gitAlias?: string }): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({
        ...(changes.passwordHash !== undefined && { password_hash: changes.passwordHash }),
        ...(changes.apiKeySalt !== undefined && { api_key_salt: changes.apiKeySalt }),
        ...(changes.gitAlias !== undefined && { git_alias: changes.gitAlias }),
      })
      .where('id', '=', id)
      .execute();
  }

  /** Everything the account owns goes with it (apps, sessions, keys, audit log: ON DELETE CASCADE). */
  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('accounts').where('id', '=', id).execute();
  }
}
