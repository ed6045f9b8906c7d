import type { Alert } from './alerts.js';
import { badRequest, conflict } from './errors.js';

/** An account's alert-email choice, and whether this server can send email at all (SMTP configured). */
export interface AlertEmailSetting {
  email: boolean;
  emailAvailable: boolean;
}

/** One account's alerts waiting to be emailed: the address, every waiting id, and the alerts listed in detail. */
export interface AlertDigest {
  accountId: number;
  to: string;
  /** every alert this email stands for; all are marked sent once SMTP accepted it */
  ids: number[];
  /** the oldest of them, in raising order, at most the digest's detail cap */
  alerts: Alert[];
}

/** What the setting needs from storage. */
export interface AlertEmailStore {
  emailOn(accountId: number): Promise<boolean>;
  /** Stores the choice; turning it off also drops the account's alerts still waiting to be emailed. */
  setEmail(accountId: number, on: boolean): Promise<void>;
}

/** `true`, `false`, `1`, `0` (any case) or a JSON boolean; anything else is a 400 naming `name`. */
export function parseSwitch(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || text === '') throw badRequest(`${name} is required: true or false`);
  if (!/^(true|false|1|0)$/i.test(text)) throw badRequest(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return /^(true|1)$/i.test(text);
}

/**
 * Whether an account's alerts are emailed to its own address. Asking for email on a server without
 * SMTP is a 409: the choice could not be honoured, and alerts would pile up to be sent the day SMTP
 * is configured. Turning it off always works.
 */
export class AlertEmailService {
  constructor(
    private readonly store: AlertEmailStore,
    private readonly available: boolean,
  ) {}

  async get(accountId: number): Promise<AlertEmailSetting> {
    return { email: await this.store.emailOn(accountId), emailAvailable: this.available };
  }

  /** Sets the choice from a request's `email` value (see {@link parseSwitch}); the setting after it. */
  async set(accountId: number, value: unknown): Promise<AlertEmailSetting> {
    const on = parseSwitch(value, 'email');
    if (on && !this.available) {
      throw conflict('alert emails need SMTP, which this snsr server does not have: its operator sets SNSR_SMTP_URL to offer them');
    }
    await this.store.setEmail(accountId, on);
    return { email: on, emailAvailable: this.available };
  }
}
