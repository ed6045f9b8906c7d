import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { AccountsRepository } from '../storage/accounts-repository.js';
import type { Account } from './types.js';
import { badRequest, conflict, notFound, unauthorized } from './errors.js';
import {
  accountToken,
  deriveApiKey,
  hashPassword,
  passwordProblem,
  randomToken,
  safeEqual,
  verifyPassword,
} from './credentials.js';

const EMAIL = /^[^\s@:]+@[^\s@:]+$/;

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
  ) {}

  async create(email: string, password: string): Promise<{ account: Account; token: string }> {
    if (!EMAIL.test(email)) throw badRequest(`email "${email}" is not an email address`);
    const problem = passwordProblem(password);
    if (problem) throw badRequest(`password ${problem}`);
    const account = await this.accounts.create(email, await hashPassword(password), randomToken());
    if (!account) throw conflict(`an account with email ${email.toLowerCase()} already exists`);
    return { account, token: this.token(account) };
  }

  async byEmail(email: string): Promise<Account> {
    const account = await this.accounts.byEmail(email);
    if (!account) throw notFound(`no developer account for ${email}`);
    return account;
  }

  /**
   * Checks `email` with either the account's password or its API key (the account token is the
   * Basic credential `email:apikey`). Unknown account: 404, as the spec says; wrong secret: 401.
   */
  async authenticate(email: string, secret: string): Promise<Account> {
    const account = await this.byEmail(email);
    if (safeEqual(secret, this.apiKey(account))) return account;
    if (await this.passwordMatches(account, secret)) return account;
    throw unauthorized('invalid credentials');
  }

  token(account: Account): string {
    return accountToken(account.email, this.apiKey(account));
  }

  async regenerateToken(account: Account): Promise<string> {
    const apiKeySalt = randomToken();
    await this.accounts.update(account.id, { apiKeySalt });
    return this.token({ ...account, apiKeySalt });
  }

  async updatePassword(account: Account, current: string, next: string, confirm: string): Promise<void> {
    if (!(await this.passwordMatches(account, current))) throw unauthorized('currentpwd is not the current password');
    const problem = passwordProblem(next);
    if (problem) throw badRequest(`newpwd ${problem}`);
    if (next !== confirm) throw badRequest('confirmpwd does not match newpwd');
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
