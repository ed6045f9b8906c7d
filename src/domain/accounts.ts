import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AccountsRepository } from '../storage/accounts-repository.js';
import type { SignupsRepository } from '../storage/signups-repository.js';
import type { Account, Authenticated, Credential } from './types.js';
import type { ApiKeyService } from './api-keys.js';
import { expired } from './api-keys.js';
import type { SessionService } from './sessions.js';
import { UNGUARDED } from './attempt-guard.js';
import type { AttemptGuard } from './attempt-guard.js';
import { badRequest, conflict, notFound, unauthorized } from './errors.js';
import {
  API_KEY_PREFIX,
  accountToken,
  deriveApiKey,
  hashPassword,
  passwordProblem,
  randomToken,
  safeEqual,
  verifyPassword,
} from './credentials.js';

export const EMAIL = /^[^\s@:]+@[^\s@:]+$/;

/** The policy and the confirmation of a new password, in the caller's parameter names. */
export function checkNewPassword(next: string, confirm: string, names = { newpwd: 'password', confirmpwd: 'repassword' }): void {
  const problem = passwordProblem(next);
  if (problem) throw badRequest(`${names.newpwd} ${problem}`);
  if (next !== confirm) throw badRequest(`${names.confirmpwd} does not match ${names.newpwd}`);
}

export class AccountService {
  /**
   * Old clients send `email:password` on every call and scrypt is slow by design, so verified
   * pairs are remembered. The key covers the stored hash: a changed password misses the cache in
   * every process at once.
   */
  private readonly verified = new LRUCache<string, true>({ max: 10_000, ttl: 10 * 60_000 });

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly secret: string,
    private readonly keys: ApiKeyService,
    private readonly sessions: SessionService,
    private readonly signups: SignupsRepository,
  ) {}

  async create(email: string, password: string): Promise<{ account: Account; token: string }> {
    if (!EMAIL.test(email)) throw badRequest(`email "${email}" is not an email address`);
    const problem = passwordProblem(password);
    if (problem) throw badRequest(`password ${problem}`);
    const account = await this.accounts.create({ email, passwordHash: await hashPassword(password), apiKeySalt: randomToken() });
    if (!account) throw conflict(`an account with email ${email.toLowerCase()} already exists`);
    return { account, token: this.token(account) };
  }

  /**
   * The account; 404 when there is none, 401 when it was signed up for but not activated yet. With
   * a guard (sign-in paths), trying unknown names counts as failing.
   */
  async byEmail(email: string, guard?: AttemptGuard): Promise<Account> {
    const account = await this.accounts.byEmail(email);
    if (account) return account;
    if (guard) {
      await guard.allow();
      await guard.failed();
    }
    if ((await this.signups.pendingCount(email.toLowerCase(), Date.now())) > 0) {
      throw unauthorized(`the account ${email.toLowerCase()} is not activated yet: follow the link in the activation email`);
    }
    throw notFound(`no developer account for ${email}`);
  }

  /** Checks `email` with its password, its account API key or one of its named API keys. */
  async authenticate(email: string, secret: string, guard: AttemptGuard = UNGUARDED): Promise<Account> {
    return (await this.authenticateBasic(email, secret, guard)).account;
  }

  /**
   * Basic credentials `email:secret`, the secret being the account's derived API key (the account
   * token), a named API key's secret, or the password. Unknown account: 404, as the spec says;
   * wrong secret: 401. The cheap checks come first: scrypt only runs for what may be a password.
   * The guard (failed-authentication limits) is asked before the password is hashed and told of
   * every failure; keys and the account token are checked outside it: nobody guesses 192 bits.
   */
  async authenticateBasic(email: string, secret: string, guard: AttemptGuard = UNGUARDED): Promise<Authenticated> {
    // A named key is found by its secret, with its account, in one query; the email must be its account's.
    if (secret.startsWith(API_KEY_PREFIX)) {
      const found = await this.keys.find(secret);
      if (found && found.account.email === email.toLowerCase()) {
        const { key, account } = found;
        if (expired(key)) throw unauthorized(`the API key "${key.name}" expired on ${key.expires!.toISOString()}`);
        return { account, credential: { kind: 'key', keyId: key.id, name: key.name, scope: key.scope } };
      }
    }
    const account = await this.byEmail(email, guard);
    if (safeEqual(secret, this.apiKey(account))) return { account, credential: { kind: 'token' } };
    await guard.allow();
    if (await this.passwordMatches(account, secret)) return { account, credential: { kind: 'password' } };
    await guard.failed();
    throw unauthorized(secret.startsWith(API_KEY_PREFIX) ? 'invalid credentials: no API key of this account has this secret (revoked?)' : 'invalid credentials');
  }

  /**
   * Whether Basic credentials checked earlier (`account` as it was then) still hold, for what stays
   * open after the check (a live stream): the account is there under the same email, and the password
   * or the account token has not changed since, or the API key is neither revoked nor expired. No
   * password is hashed: a comparison and a read or two.
   */
  async stillValid(account: Account, credential: Credential): Promise<boolean> {
    const now = await this.accounts.byId(account.id);
    if (!now || now.email !== account.email) return false;
    if (credential.kind === 'password') return now.passwordHash === account.passwordHash;
    if (credential.kind === 'token') return now.apiKeySalt === account.apiKeySalt;
    if (credential.kind === 'key') return this.keys.usable(account.id, credential.keyId);
    return true;
  }

  /** The dashboard's sign-in: the password only, never a token or an API key. */
  async checkPassword(email: string, password: string, guard: AttemptGuard = UNGUARDED): Promise<Account> {
    const account = await this.byEmail(email, guard);
    await guard.allow();
    if (await this.passwordMatches(account, password)) return account;
    await guard.failed();
    throw unauthorized('the password is not right for this account');
  }

  token(account: Account): string {
    return accountToken(account.email, this.apiKey(account));
  }

  async regenerateToken(account: Account): Promise<string> {
    const apiKeySalt = randomToken();
    await this.accounts.update(account.id, { apiKeySalt });
    return this.token({ ...account, apiKeySalt });
  }

  /**
   * Changes the password and ends every other dashboard session (`keepSession`, the caller's own,
   * stays). A wrong current password is the spec's 401.
   */
  async updatePassword(account: Account, current: string, next: string, confirm: string, keepSession?: string, guard: AttemptGuard = UNGUARDED): Promise<void> {
    await guard.allow();
    if (!(await this.passwordMatches(account, current))) {
      await guard.failed();
      throw unauthorized('currentpwd is not the current password');
    }
    await this.setPassword(account, next, confirm, { newpwd: 'newpwd', confirmpwd: 'confirmpwd' });
    await this.sessions.endAll(account.id, keepSession);
  }

  /** Sets a password after checking the policy and the confirmation; sessions are the caller's business. */
  async setPassword(account: Account, next: string, confirm: string, names?: { newpwd: string; confirmpwd: string }): Promise<void> {
    checkNewPassword(next, confirm, names);
    await this.accounts.update(account.id, { passwordHash: await hashPassword(next) });
  }

  async registerGit(account: Account, gitAlias: string): Promise<void> {
    const alias = gitAlias.trim();
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(alias)) {
      throw badRequest('gitAlias must be 1 to 64 letters, digits, dots, dashes or underscores');
    }
    await this.accounts.update(account.id, { gitAlias: alias });
  }

  private apiKey(account: Account): string {
    return deriveApiKey(this.secret, account.id, account.apiKeySalt);
  }

  private async passwordMatches(account: Account, password: string): Promise<boolean> {
    const key = createHash('sha256').update(`${account.passwordHash}\0${password}`).digest('base64');
    if (this.verified.has(key)) return true;
    const ok = await verifyPassword(password, account.passwordHash);
    if (ok) this.verified.set(key, true);
    return ok;
  }
}
