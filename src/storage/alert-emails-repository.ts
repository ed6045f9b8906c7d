import type { Kysely } from 'kysely';
import type { AlertDigest, AlertEmailStore } from '../domain/alert-email.js';
import { AlertsRepository } from './alerts-repository.js';
import type { Database } from './schema.js';

/** Ids per UPDATE when marking alerts sent: well under SQLite's bound-parameter limit. */
const MARK_BATCH = 500;

/**
 * Alert emails in the database: each account's choice (`alert_settings`) and the alerts waiting to be
 * emailed (`alerts.email_pending`, set when raised for an account that asks). The waiting rows are in
 * a partial index, so a pass costs what is waiting, not the table.
 */
export class AlertEmailsRepository implements AlertEmailStore {
  constructor(private readonly db: Kysely<Database>) {}

  async emailOn(accountId: number): Promise<boolean> {
    const row = await this.db.selectFrom('alert_settings').select('email').where('account_id', '=', accountId).executeTakeFirst();
    return Number(row?.email ?? 0) === 1;
  }

  async setEmail(accountId: number, on: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('alert_settings')
        .values({ account_id: accountId, email: on ? 1 : 0 })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ email: on ? 1 : 0 }))
        .execute();
      // Off means no more email, the ones not sent yet included.
      if (!on) await trx.updateTable('alerts').set({ email_pending: 0 }).where('email_pending', '=', 1).where('account_id', '=', accountId).execute();
    });
  }

  /**
   * The oldest `limit` waiting alerts, grouped by account in the order their first one was raised:
   * account id → alert ids. What is beyond `limit` waits for the next pass.
   */
  async waiting(limit: number): Promise<Map<number, number[]>> {
    const rows = await this.db.selectFrom('alerts').select(['id', 'account_id']).where('email_pending', '=', 1).orderBy('id').limit(limit).execute();
    const byAccount = new Map<number, number[]>();
    for (const row of rows) {
      const accountId = Number(row.account_id);
      const ids = byAccount.get(accountId) ?? [];
      ids.push(Number(row.id));
      byAccount.set(accountId, ids);
    }
    return byAccount;
  }

  /**
   * The email to send for these waiting alerts of one account: its address and the first `detail`
   * alerts; undefined when the account is gone or nothing of it is still waiting (turned off since).
   */
  async digest(accountId: number, ids: readonly number[], detail: number): Promise<AlertDigest | undefined> {
    const account = await this.db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
    if (!account) return undefined;
    const still = await this.db
      .selectFrom('alerts')
      .select('id')
      .where('id', 'in', [...ids])
      .where('email_pending', '=', 1)
      .orderBy('id')
      .execute();
    if (still.length === 0) return undefined;
    const waiting = still.map((row) => Number(row.id));
    return { accountId, to: account.email, ids: waiting, alerts: await AlertsRepository.byIds(this.db, waiting.slice(0, detail)) };
  }

  /** Marks alerts emailed (SMTP accepted the email that lists or counts them). */
  async markSent(ids: readonly number[]): Promise<void> {
    for (let start = 0; start < ids.length; start += MARK_BATCH) {
      await this.db
        .updateTable('alerts')
        .set({ email_pending: 0 })
        .where('id', 'in', ids.slice(start, start + MARK_BATCH))
        .execute();
    }
  }
}
