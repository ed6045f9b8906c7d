import type { ApiKeysRepository } from '../storage/api-keys-repository.js';
import type { Account, ApiKey, KeyScope } from './types.js';
import { accountToken, newApiKeySecret, secretHash } from './credentials.js';
import { badRequest, conflict, notFound } from './errors.js';

export const KEY_SCOPES: readonly KeyScope[] = ['read', 'full'];
export const MAX_KEYS_PER_ACCOUNT = 100;
/** last_used moves at most this often: a key used by a busy client costs one write a minute. */
const TOUCH_EVERY_MS = 60_000;

export interface NewKeyInput {
  name: string;
  scope?: string | undefined;
  /** Absent or null: the key does not expire. */
  expires?: Date | null | undefined;
}

export interface CreatedKey {
  key: ApiKey;
  /** Shown once, never stored. */
  secret: string;
  /** What clients send after `Basic `: base64 of `email:secret`, like the account token. */
  token: string;
}

/**
 * Named API keys beside the account token: a scope (`read` keys get 403 on writes), an optional
 * expiry, revocable one by one. Only the secret's SHA-256 is stored.
 */
export class ApiKeyService {
  constructor(private readonly keys: ApiKeysRepository) {}

  async create(account: Account, input: NewKeyInput): Promise<CreatedKey> {
    const name = input.name.trim();
    if (name === '' || name.length > 64 || /\p{Cc}/u.test(name)) {
      throw badRequest('name must be 1 to 64 characters, without control characters');
    }
    const scope = input.scope ?? 'full';
    if (!KEY_SCOPES.includes(scope as KeyScope)) throw badRequest(`scope must be read or full, got "${scope}"`);
    if (input.expires && input.expires.getTime() <= Date.now()) {
      throw badRequest(`expires must be in the future, got ${input.expires.toISOString()}`);
    }
    if ((await this.keys.listByAccount(account.id)).length >= MAX_KEYS_PER_ACCOUNT) {
      throw conflict(`an account has at most ${MAX_KEYS_PER_ACCOUNT} API keys: revoke one first`);
    }
    const { secret, prefix } = newApiKeySecret();
    const key = await this.keys.create({
      accountId: account.id,
      name,
      prefix,
      secretHash: secretHash(secret),
      scope: scope as KeyScope,
      expiresAt: input.expires?.getTime() ?? null,
    });
    if (!key) throw conflict(`an API key named "${name}" already exists`);
    return { key, secret, token: accountToken(account.email, secret) };
  }

  list(accountId: number): Promise<ApiKey[]> {
    return this.keys.listByAccount(accountId);
  }

  async revoke(accountId: number, id: number): Promise<ApiKey> {
    const key = await this.keys.owned(accountId, id);
    if (!key) throw notFound(`API key ${id} not found`);
    await this.keys.delete(key.id);
    return key;
  }

  async revokeByName(accountId: number, name: string): Promise<ApiKey> {
    const key = await this.keys.byName(accountId, name);
    if (!key) throw notFound(`no API key named "${name}"`);
    await this.keys.delete(key.id);
    return key;
  }

  /** Whether the account's key still works: not revoked, not expired. */
  async usable(accountId: number, id: number): Promise<boolean> {
    const key = await this.keys.owned(accountId, id);
    return key !== undefined && !expired(key);
  }

  /**
   * The key with this secret and its account, expired or not (the caller says which), with its
   * last use recorded; undefined when no key has it.
   */
  async find(secret: string): Promise<{ key: ApiKey; account: Account } | undefined> {
    const found = await this.keys.withAccount(secretHash(secret));
    if (!found) return undefined;
    const { key } = found;
    const now = Date.now();
    if (!expired(key, now) && (key.lastUsed === null || now - key.lastUsed.getTime() >= TOUCH_EVERY_MS)) {
      await this.keys.touch(key.id, now);
      key.lastUsed = new Date(now);
    }
    return found;
  }
}

export const expired = (key: ApiKey, now = Date.now()): boolean => key.expires !== null && key.expires.getTime() <= now;
