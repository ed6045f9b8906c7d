import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { Capabilities } from '../storage/capabilities.js';
import type { Alert } from '../domain/alerts.js';
import { AlertsRepository } from '../storage/alerts-repository.js';
import type { Database, MessageRow } from '../storage/schema.js';
import { due, pickDue } from './due-picks.js';

/** A claim, as the database holds it: completions and releases must name both to count. */
export interface Lease {
  owner: string;
  /** Epoch ms on the database clock; a later claim of the same row always has a later one. */
  until: number;
}

/** A delivery this process holds a lease on, with what sending it needs. */
export interface ClaimedDelivery {
  id: number;
  uuid: string;
  appId: number;
  /** Sends started so far, this one included: counted when claimed, so a send cut short by a crash counts too. */
  attempts: number;
  lease: Lease;
  /** `performance.now()` before the claim was asked for: the lease surely ends no sooner than `claimedAt + leaseMs`. */
  claimedAt: number;
  callbackUrl: string | null;
  secret: string;
  subject: DeliverySubject;
}

/** What a delivery carries: a message (the contract's callback body) or an alert. */
export type DeliverySubject = { kind: 'message'; message: MessageRow; deviceSerial: string } | { kind: 'alert'; alert: Alert };

export interface ClaimRequest {
  owner: string;
  leaseMs: number;
  /** deliveries to claim at most */
  limit: number;
  /** Leases one app may hold at once across every worker: its in-flight limit. */
  perAppLimit: number;
  /** how many more of this app's deliveries the caller can hold now */
  allowance: (appId: number) => number;
}

/** Now, in epoch ms, on the database server's clock, which every process shares. */
export function databaseNow(capabilities: Capabilities): RawBuilder<number> {
  return capabilities.dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : // SQLite keeps 'now' in whole milliseconds; rounding undoes the Julian-day float's error, which
      // truncated to a millisecond before the process's own clock about a third of the time.
      sql<number>`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`;
}

// Claims take one PostgreSQL advisory lock (key pair: "snsr", 1) for their transaction, so the
// per-app count each one reads cannot change under it: the limit holds across processes.
const CLAIM_LOCK = sql`pg_advisory_xact_lock(1936618354, 1)`;

/**
 * For this transaction only: the server ends the session if the worker leaves it idle (stalled,
 * paused between statements) longer than this, so the locks it holds — the claim lock, the rows a
 * completion updates — never keep other workers waiting for a stalled one.
 */
export const BOUND_IDLE = sql`set_config('idle_in_transaction_session_timeout', '5000', true)`;

/**
 * Leases due deliveries, oldest first, in one short transaction: reads the database clock (taking
 * the claim lock on PostgreSQL), counts each app's live leases, picks within what is left of each
 * app's limit, and leases the picked rows, counting the attempt. Claims are batches of up to
 * `limit` rows, so serializing them costs a worker little.
 */
export async function claimDeliveries(db: Kysely<Database>, capabilities: Capabilities, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  if (request.limit <= 0) return [];
  const claimedAt = performance.now();
  const leased = await db.transaction().execute(async (trx) => {
    const clock = capabilities.dialect === 'postgres' ? sql<{ now: number }>`select ${BOUND_IDLE}, ${CLAIM_LOCK}, ${databaseNow(capabilities)} as now` : sql<{ now: number }>`select ${databaseNow(capabilities)} as now`;
    const now = Number((await clock.execute(trx)).rows[0]!.now);
    // Only a pending row carries a lease (every other status clears it), so the small partial index
    // of leased rows answers this alone, however long the queue.
    const live = await trx
      .selectFrom('deliveries')
      .select(['app_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('lease_owner', 'is not', null)
      .where('lease_until', '>', now)
      .groupBy('app_id')
      .execute();
    const held = new Map(live.map((row) => [row.app_id, Number(row.n)]));
    const allowance = (appId: number) => Math.min(request.allowance(appId), request.perAppLimit - (held.get(appId) ?? 0));
    const picked = await pickDue(trx, capabilities, { limit: request.limit, allowance, perAppLimit: request.perAppLimit, now });
    if (picked.length === 0) return { ids: [], until: 0 };
    const until = now + request.leaseMs;
    const rows = await trx
      .updateTable('deliveries')
      .set((eb) => ({ lease_owner: request.owner, lease_until: until, attempts: eb('attempts', '+', 1), updated_at: now }))
      .where('id', 'in', picked)
      .where(due(now))
      .returning('id')
      .execute();
    return { ids: rows.map((row) => row.id), until };
  });
  return load(db, leased.ids, { owner: request.owner, until: leased.until }, claimedAt);
}

async function load(db: Kysely<Database>, ids: number[], lease: Lease, claimedAt: number): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const [messages, alerts] = await Promise.all([loadMessages(db, ids, lease, claimedAt), loadAlerts(db, ids, lease, claimedAt)]);
  return [...messages, ...alerts].sort((a, b) => a.id - b.id);
}

/** The alert deliveries among the claimed rows (none, most of the time: the index on alert_id answers). */
async function loadAlerts(db: Kysely<Database>, ids: number[], lease: Lease, claimedAt: number): Promise<ClaimedDelivery[]> {
  const rows = await db
    .selectFrom('deliveries')
    .innerJoin('apps', 'apps.id', 'deliveries.app_id')
    .select(['deliveries.id', 'deliveries.uuid', 'deliveries.app_id', 'deliveries.attempts', 'deliveries.alert_id', 'apps.callback_url', 'apps.secret'])
    .where('deliveries.id', 'in', ids)
    .where('deliveries.alert_id', 'is not', null)
    .execute();
  if (rows.length === 0) return [];
  const alerts = new Map((await AlertsRepository.byIds(db, rows.map((row) => row.alert_id!))).map((alert) => [alert.id, alert]));
  return rows.flatMap((row) => {
    const alert = alerts.get(row.alert_id!);
    if (!alert) return [];
    return [{ id: row.id, uuid: row.uuid, appId: row.app_id, attempts: row.attempts, lease, claimedAt, callbackUrl: row.callback_url, secret: row.secret, subject: { kind: 'alert' as const, alert } }];
  });
}

async function loadMessages(db: Kysely<Database>, ids: number[], lease: Lease, claimedAt: number): Promise<ClaimedDelivery[]> {
  const rows = await db
    .selectFrom('deliveries')
    .innerJoin('apps', 'apps.id', 'deliveries.app_id')
    .innerJoin('messages', 'messages.id', 'deliveries.message_id')
    .innerJoin('devices', 'devices.id', 'messages.device_id')
    .selectAll('messages')
    .select([
      'deliveries.id as delivery_id',
      'deliveries.uuid as delivery_uuid',
      'deliveries.app_id as delivery_app_id',
      'deliveries.attempts as delivery_attempts',
      'apps.callback_url as app_callback_url',
      'apps.secret as app_secret',
      'devices.serial as device_serial',
    ])
    .where('deliveries.id', 'in', ids)
    .orderBy('deliveries.id')
    .execute();
  return rows.map(({ delivery_id, delivery_uuid, delivery_app_id, delivery_attempts, app_callback_url, app_secret, device_serial, ...message }) => ({
    id: delivery_id,
    uuid: delivery_uuid,
    appId: delivery_app_id,
    attempts: delivery_attempts,
    lease,
    claimedAt,
    callbackUrl: app_callback_url,
    secret: app_secret,
    subject: { kind: 'message' as const, message, deviceSerial: device_serial },
  }));
}
