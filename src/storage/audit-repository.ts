import type { Kysely } from 'kysely';
import type { AuditEntry } from '../domain/types.js';
import type { AuditRow, Database } from './schema.js';

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  accountId: row.account_id,
  at: new Date(row.at),
  action: row.action,
  credential: row.credential,
  keyName: row.key_name,
  address: row.address,
  detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>),
});

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'> & { at?: Date };

export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(entry: NewAuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        account_id: entry.accountId,
        at: (entry.at ?? new Date()).getTime(),
        action: entry.action,
        credential: entry.credential,
        key_name: entry.keyName,
        address: entry.address,
        detail: entry.detail === null ? null : JSON.stringify(entry.detail),
      })
      .execute();
  }

  /** Newest first: a keyset scan of (account_id, id). */
  async list(accountId: number, limit: number, before?: number): Promise<AuditEntry[]> {
    let query = this.db.selectFrom('audit_log').selectAll().where('account_id', '=', accountId);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toEntry);
  }

  /** Deletes at most `limit` entries older than `cutoff`; the caller repeats while it gets `limit`. */
  async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
    const result = await this.db
      .deleteFrom('audit_log')
      .where('id', 'in', (db) => db.selectFrom('audit_log').select('id').where('at', '<', cutoff).limit(limit))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
