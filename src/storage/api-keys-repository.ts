import type { Kysely } from 'kysely';
import type { Account, ApiKey, KeyScope } from '../domain/types.js';
import type { ApiKeyRow, Database } from './schema.js';
import { JOINED_ACCOUNT, joinedAccount } from './accounts-repository.js';

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  prefix: row.prefix,
  scope: row.scope as KeyScope,
  created: new Date(row.created_at),
  expires: row.expires_at === null ? null : new Date(row.expires_at),
  lastUsed: row.last_used_at === null ? null : new Date(row.last_used_at),
});

export interface NewApiKey {
  accountId: number;
  name: string;
  prefix: string;
  secretHash: string;
  scope: KeyScope;
  expiresAt: number | null;
}

export class ApiKeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Undefined when the account already has a key of that name. */
  async create(key: NewApiKey): Promise<ApiKey | undefined> {
    const row = await this.db
      .insertInto('api_keys')
      .values({
        account_id: key.accountId,
        name: key.name,
        prefix: key.prefix,
        secret_hash: key.secretHash,
        scope: key.scope,
        created_at: Date.now(),
        expires_at: key.expiresAt,
      })
      .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toApiKey(row);
  }

  /** The key with this secret and its account, in one query: a key costs no more than the account token. */
  async withAccount(secretHash: string): Promise<{ key: ApiKey; account: Account } | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select(JOINED_ACCOUNT)
      .where('api_keys.secret_hash', '=', secretHash)
      .executeTakeFirst();
    return row && { key: toApiKey(row), account: joinedAccount(row) };
  }

  async listByAccount(accountId: number): Promise<ApiKey[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toApiKey);
  }

  async owned(accountId: number, id: number): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toApiKey(row);
  }

  async byName(accountId: number, name: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
    return row && toApiKey(row);
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('api_keys').where('id', '=', id).execute();
  }

  async touch(id: number, now: number): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
      .execute();
  }
}
