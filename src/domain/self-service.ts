import { randomUUID } from 'node:crypto';
import type { AccountsRepository } from '../storage/accounts-repository.js';
import type { SignupsRepository } from '../storage/signups-repository.js';
import type { PasswordResetsRepository } from '../storage/password-resets-repository.js';
import type { Account } from './types.js';
import type { AccountMail } from './account-mail.js';
import type { AccountService } from './accounts.js';
import { EMAIL, checkNewPassword } from './accounts.js';
import type { ModuleService } from './modules.js';
import type { SessionService } from './sessions.js';
import { hashPassword, randomSecret, randomToken, secretHash } from './credentials.js';
import { badRequest, conflict, forbidden, gone, notFound } from './errors.js';

export interface SelfServicePolicy {
  signup: 'open' | 'closed';
  /** Base of the links in emails; required whenever `mail` is given. */
  publicUrl: string | undefined;
  signupExpiryMs: number;
  resetExpiryMs: number;
}

export interface SignupInput {
  email: string;
  password: string;
  repassword: string;
  firstname?: string | undefined;
  lastname?: string | undefined;
}

/** Live links per address: enough for a lost email, too few to flood an inbox through snsr. */
const MAX_LIVE_LINKS = 3;

const CLOSED = 'accounts on this snsr server are created by its operator (snsr accounts create): sign-up is closed';
const NO_RESET = 'password reset by email is not available on this server (no SMTP configured): ask the operator to set a new password';

/**
 * What the original portal let developers do for themselves: sign up and activate by email, read
 * their profile, reset a forgotten password by email, and delete their account.
 */
export class SelfService {
  constructor(
    private readonly repositories: { accounts: AccountsRepository; signups: SignupsRepository; resets: PasswordResetsRepository },
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly modules: ModuleService,
    private readonly mail: AccountMail | undefined,
    private readonly policy: SelfServicePolicy,
  ) {}

  get signupOpen(): boolean {
    return this.policy.signup === 'open' && this.mail !== undefined;
  }

  get passwordResetAvailable(): boolean {
    return this.mail !== undefined;
  }

  /**
   * Answers the same whether or not the address has an account: a new address gets an activation
   * link, a known one an email saying so. Both pay for the password hash, so timing tells nothing.
   */
  async register(input: SignupInput): Promise<void> {
    if (!this.signupOpen) throw forbidden(CLOSED);
    const email = input.email.trim().toLowerCase();
    if (!EMAIL.test(email) || email.length > 254) throw badRequest(`email "${input.email}" is not an email address`);
    const firstname = name(input.firstname, 'firstname');
    const lastname = name(input.lastname, 'lastname');
    checkNewPassword(input.password, input.repassword);
    const passwordHash = await hashPassword(input.password);
    if (await this.repositories.accounts.byEmail(email)) {
      this.mail!.alreadyRegistered(email, `${this.policy.publicUrl}/`, `${this.policy.publicUrl}/forgot-password`);
      return;
    }
    const now = Date.now();
    if ((await this.repositories.signups.pendingCount(email, now)) >= MAX_LIVE_LINKS) return;
    const uuid = randomUUID();
    const expiresAt = now + this.policy.signupExpiryMs;
    await this.repositories.signups.create({ email, passwordHash, firstname, lastname, tokenHash: secretHash(uuid), expiresAt });
    this.mail!.activation(email, `${this.policy.publicUrl}/dashboards/developer.html#?uuid=${uuid}`, new Date(expiresAt));
  }

  /** The link's sign-up becomes an account, with the password chosen when signing up. */
  async activate(uuid: string): Promise<Account> {
    const id = uuid.trim().toLowerCase();
    const tokenHash = secretHash(id);
    const signup = /^[0-9a-f-]{36}$/.test(id) ? await this.repositories.signups.byTokenHash(tokenHash) : undefined;
    if (!signup) throw notFound('this activation link is unknown: sign up again');
    const now = Date.now();
    if (signup.activated) throw gone('this activation link was already used: sign in with your email and password');
    if (signup.expires.getTime() <= now) throw gone(`this activation link expired on ${signup.expires.toISOString()}: sign up again`);
    if (!(await this.repositories.signups.activate(signup, tokenHash, now))) throw gone('this activation link was already used');
    const account = await this.repositories.accounts.create({
      email: signup.email,
      passwordHash: signup.passwordHash,
      apiKeySalt: randomToken(),
      firstname: signup.firstname,
      lastname: signup.lastname,
    });
    if (!account) throw conflict(`an account with email ${signup.email} already exists: sign in`);
    return account;
  }

  /** Emails a single-use link when the address has an account; the answer is the same either way. */
  async requestPasswordReset(email: string): Promise<Account | undefined> {
    if (!this.mail) throw forbidden(NO_RESET);
    if (!EMAIL.test(email.trim())) throw badRequest(`email "${email}" is not an email address`);
    const account = await this.repositories.accounts.byEmail(email.trim());
    if (!account) return undefined;
    const now = Date.now();
    if ((await this.repositories.resets.pendingCount(account.id, now)) >= MAX_LIVE_LINKS) return account;
    const token = randomSecret();
    const expiresAt = now + this.policy.resetExpiryMs;
    await this.repositories.resets.create(secretHash(token), account.id, expiresAt);
    this.mail.passwordReset(account.email, `${this.policy.publicUrl}/reset-password#token=${token}`, new Date(expiresAt));
    return account;
  }

  /** Sets the new password, spends the link (and the account's other links) and ends every session. */
  async resetPassword(token: string, password: string, repassword: string): Promise<Account> {
    if (!this.mail) throw forbidden(NO_RESET);
    const tokenHash = secretHash(token.trim());
    const reset = /^[A-Za-z0-9_-]{43}$/.test(token.trim()) ? await this.repositories.resets.byTokenHash(tokenHash) : undefined;
    const account = reset && (await this.repositories.accounts.byId(reset.accountId));
    if (!reset || !account) throw notFound('this password reset link is unknown: ask for a new one');
    if (reset.used) throw gone('this password reset link was already used: ask for a new one');
    const now = Date.now();
    if (reset.expires.getTime() <= now) throw gone(`this password reset link expired on ${reset.expires.toISOString()}: ask for a new one`);
    checkNewPassword(password, repassword); // before spending the link, so a typo costs nothing
    if (!(await this.repositories.resets.use(tokenHash, account.id, now))) throw gone('this password reset link was already used');
    await this.accounts.setPassword(account, password, repassword);
    await this.sessions.endAll(account.id);
    return account;
  }

  /** Unregisters every module of the account (as DELETE modules.json would), then deletes it. */
  async deleteAccount(account: Account, email: string): Promise<void> {
    if (email.trim().toLowerCase() !== account.email) {
      throw notFound(`account ${email} is not the one making this request: an account can only delete itself`);
    }
    for (const module of await this.modules.list(account.id)) await this.modules.unregister(account.id, module.id, module.serial);
    await this.repositories.accounts.delete(account.id);
  }
}

function name(value: string | undefined, field: string): string | null {
  const trimmed = value?.trim() ?? '';
  if (trimmed.length > 100 || /\p{Cc}/u.test(trimmed)) throw badRequest(`${field} must be at most 100 characters, without control characters`);
  return trimmed === '' ? null : trimmed;
}
