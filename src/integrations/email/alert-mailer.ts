import type { Logger } from 'pino';
import type { Lease } from '../../monitoring/lease.js';
import type { AlertEmailsRepository } from '../../storage/alert-emails-repository.js';
import type { Notifier } from '../../storage/notifications.js';
import { alertEmail } from './alert-emails.js';
import type { Mailer } from './mailer.js';
import type { AlertMailerSettings, PassOutcome } from './alert-mailer-settings.js';

/** Alerts read per pass (all accounts); more waits for the next pass. */
const PASS_LIMIT = 2000;
/** Emails in flight at once (nodemailer's pool opens up to 5 connections). */
const SEND_CONCURRENCY = 4;
/** Alerts described one by one in an email; the rest are counted. */
export const DIGEST_DETAIL = 20;

/** The SMTP reply code, when the server answered (a refused recipient); none when it could not be reached. */
const replyCode = (error: unknown) => (error as { responseCode?: number } | null)?.responseCode;

interface Retry {
  attempts: number;
  at: number;
}

/**
 * Emails alerts to the accounts that ask for them. Each pass, the process holding the `alert-mailer`
 * lease (one across every process sharing the database) reads the waiting alerts and sends each
 * account one email for all of its own, then marks them sent — only once SMTP accepted it, so an
 * SMTP outage loses nothing: the alerts wait and go in the next email. An account emailed less than
 * `intervalMs` ago waits for the rest of it. A failed send is retried with a doubling wait: for that
 * account when SMTP refused it, for all when SMTP could not be reached. Woken by the `alerts`
 * notification, polling as a fallback.
 */
export class AlertMailer {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private wakeAfterRun = Infinity;
  private stopped = false;
  private unsubscribe: () => void = () => {};
  private readonly lastSent = new Map<number, number>();
  private readonly retries = new Map<number, Retry>();
  private smtp: Retry = { attempts: 0, at: 0 };
  /** Alerts SMTP accepted but not yet marked sent (the database failed): marked before anything else. */
  private unmarked: number[] = [];

  constructor(
    private readonly store: AlertEmailsRepository,
    private readonly mailer: Mailer,
    readonly lease: Lease,
    private readonly notifier: Notifier,
    private readonly settings: AlertMailerSettings,
    private readonly log: Logger,
    private readonly count: (outcome: 'sent' | 'failed') => void,
  ) {}

  start(): this {
    this.unsubscribe = this.notifier.subscribe('alerts', () => this.schedule(this.settings.settleMs));
    this.schedule(0);
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    clearTimeout(this.timer);
    await this.running;
    await this.lease.release().catch(() => undefined);
  }

  /** One pass if this process holds the lease: emails sent, and when (epoch ms) an account held back is due. */
  async pass(): Promise<PassOutcome> {
    const outcome: PassOutcome = { sent: 0, failed: 0, dueAt: Infinity };
    if (!(await this.lease.acquire())) return outcome;
    await this.markUnmarked();
    if (Date.now() < this.smtp.at) return { ...outcome, dueAt: this.smtp.at };
    this.forgetOld(Date.now());
    const due: [number, number[]][] = [];
    for (const [accountId, ids] of await this.store.waiting(PASS_LIMIT)) {
      const dueAt = Math.max((this.lastSent.get(accountId) ?? -Infinity) + this.settings.intervalMs, this.retries.get(accountId)?.at ?? 0);
      if (dueAt > Date.now()) outcome.dueAt = Math.min(outcome.dueAt, dueAt);
      else due.push([accountId, ids]);
    }
    for (let start = 0; start < due.length && !this.stopped; start += SEND_CONCURRENCY) {
      // Renewed before each round of sends: a process that lost the lease (stalled past its term) stops here.
      if (!(await this.lease.acquire())) break;
      const now = Date.now();
      // Settled, not raced: a pass ends only once every send of it is marked or known to have failed.
      const results = await Promise.allSettled(due.slice(start, start + SEND_CONCURRENCY).map(([accountId, ids]) => this.mailAccount(accountId, ids, now, outcome)));
      const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure) throw failure.reason;
      const unreachable = results.find((result) => result.status === 'fulfilled' && result.value !== undefined);
      if (unreachable?.status === 'fulfilled') {
        this.smtp = this.backOff(this.smtp, now);
        this.log.warn({ err: unreachable.value, retryInMs: this.smtp.at - now }, 'alert email not sent: SMTP unreachable; retrying later');
        return { ...outcome, dueAt: this.smtp.at };
      }
    }
    return outcome;
  }

  /** Emails one account its waiting alerts and marks them; the error when SMTP could not be reached. */
  private async mailAccount(accountId: number, ids: number[], now: number, outcome: PassOutcome): Promise<unknown> {
    const digest = await this.store.digest(accountId, ids, DIGEST_DETAIL);
    if (!digest) return undefined;
    try {
      await this.send(alertEmail(digest, this.settings.publicUrl));
    } catch (error) {
      outcome.failed++;
      this.count('failed');
      if (replyCode(error) === undefined) return error;
      const retry = this.backOff(this.retries.get(accountId), now);
      this.retries.set(accountId, retry);
      outcome.dueAt = Math.min(outcome.dueAt, retry.at);
      this.log.warn({ err: error, accountId, retryInMs: retry.at - now }, 'alert email refused by SMTP; retrying later');
      return undefined;
    }
    try {
      await this.store.markSent(digest.ids);
    } catch (error) {
      this.unmarked.push(...digest.ids);
      throw error;
    }
    this.smtp = { attempts: 0, at: 0 };
    this.retries.delete(accountId);
    this.lastSent.set(accountId, Date.now());
    outcome.sent++;
    this.count('sent');
    this.log.info({ accountId, alerts: digest.ids.length }, 'alert email sent');
    return undefined;
  }

  /** Marks what SMTP accepted but the database failed to mark: never emailed again by this process. */
  private async markUnmarked(): Promise<void> {
    if (this.unmarked.length === 0) return;
    const ids = this.unmarked;
    await this.store.markSent(ids);
    this.unmarked = this.unmarked.filter((id) => !ids.includes(id));
  }

  private async send(email: Parameters<Mailer['send']>[0]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`SMTP did not answer within ${this.settings.sendTimeoutMs} ms`)), this.settings.sendTimeoutMs);
    });
    try {
      await Promise.race([this.mailer.send(email), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private backOff(previous: Retry | undefined, now: number): Retry {
    const attempts = (previous?.attempts ?? 0) + 1;
    return { attempts, at: now + Math.min(this.settings.backoffMs * 2 ** (attempts - 1), this.settings.maxBackoffMs) };
  }

  /** Only accounts still held back are remembered. */
  private forgetOld(now: number): void {
    for (const [accountId, at] of this.lastSent) if (at + this.settings.intervalMs <= now) this.lastSent.delete(accountId);
  }

  /** Runs a pass in `delayMs` unless one is due sooner; while a pass runs, the next follows it. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.running) {
      this.wakeAfterRun = Math.min(this.wakeAfterRun, at);
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.run(), Math.max(0, delayMs));
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    let dueAt = Infinity;
    this.running = this.pass()
      .then((outcome) => void (dueAt = outcome.dueAt))
      .catch((error: unknown) => this.log.error({ err: error }, 'alert mailer pass failed; trying again shortly'))
      .finally(() => {
        this.running = undefined;
        const next = Math.min(Date.now() + this.settings.pollMs, dueAt, this.wakeAfterRun);
        this.wakeAfterRun = Infinity;
        this.schedule(next - Date.now());
      });
  }
}
