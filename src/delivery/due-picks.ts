import { sql } from 'kysely';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Capabilities } from '../storage/capabilities.js';
import type { Database } from '../storage/schema.js';

/** A due delivery as the pick sees it. */
interface Candidate {
  id: number;
  app_id: number;
  next_attempt_at: number;
}

export interface PickRequest {
  /** Rows to pick at most. */
  limit: number;
  /** Rows one app may still take now (never more than `perAppLimit`). */
  allowance: (appId: number) => number;
  perAppLimit: number;
  /** Epoch ms on the database clock. */
  now: number;
}

/**
 * A row of the queue. Written out, not bound: the outbox's indexes are partial, one per status, and
 * a query reaches one only by naming its status.
 */
export const PENDING = sql<boolean>`status = 'pending'`;

/** Pending, due by `now`, and not leased (or the lease ended). */
export const due = (now: number) => (eb: ExpressionBuilder<Database, 'deliveries'>) =>
  eb.and([PENDING, eb('next_attempt_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)])]);

/**
 * Picks due deliveries, oldest first, at most `allowance(app)` per app, in at most two statements
 * whatever the backlog. First the oldest due rows across apps, the order they fell due in. When
 * those are spent on apps that cannot take more (one app's backlog at the head of the queue), the
 * other apps' oldest due rows are read app by app, from the per-app index of pending rows: the
 * cost follows the apps with work, never the rows queued behind a saturated one.
 */
export async function pickDue(db: Kysely<Database>, capabilities: Capabilities, request: PickRequest): Promise<number[]> {
  const picks = new Picks(request);
  const scan = Math.min(1000, Math.max(32, request.limit * 2));
  const head = await db
    .selectFrom('deliveries')
    .select(['id', 'app_id', 'next_attempt_at'])
    .where(due(request.now))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(scan)
    .execute();
  picks.offer(head);
  if (picks.full || head.length < scan || picks.saturated.size === 0) return picks.ids;
  const others = capabilities.dialect === 'postgres' ? await oldestPerAppPostgres(db, request, picks) : await oldestPerAppSqlite(db, request, picks);
  picks.offer(others);
  return picks.ids;
}

/** The picks so far: ids in order, and how many each app took. */
class Picks {
  readonly ids: number[] = [];
  readonly saturated = new Set<number>();
  private readonly taken = new Map<number, number>();
  private readonly chosen = new Set<number>();

  constructor(private readonly request: PickRequest) {}

  get full(): boolean {
    return this.ids.length >= this.request.limit;
  }

  offer(candidates: Candidate[]): void {
    for (const candidate of candidates) {
      if (this.full) return;
      if (this.chosen.has(candidate.id)) continue;
      const used = this.taken.get(candidate.app_id) ?? 0;
      if (used < this.request.allowance(candidate.app_id)) {
        this.ids.push(candidate.id);
        this.chosen.add(candidate.id);
        this.taken.set(candidate.app_id, used + 1);
      } else this.saturated.add(candidate.app_id);
    }
  }
}

/**
 * The apps with pending rows, each found by one probe of the per-app index (the next app id past
 * the last): a loose index scan, so the cost is the number of apps, not of rows.
 */
const APPS_WITH_PENDING = sql`
  with recursive apps(app_id) as (
    select * from (select app_id from deliveries where ${PENDING} order by app_id limit 1) as first
    union all
    select (select d.app_id from deliveries d where ${PENDING} and d.app_id > apps.app_id order by d.app_id limit 1)
    from apps where apps.app_id is not null
  )`;

/** One statement: each app's oldest due rows (a LATERAL probe of its index range), oldest first. */
async function oldestPerAppPostgres(db: Kysely<Database>, request: PickRequest, picks: Picks): Promise<Candidate[]> {
  const { now, perAppLimit } = request;
  const { rows } = await sql<Candidate>`${APPS_WITH_PENDING}
    select p.id, p.app_id, p.next_attempt_at from apps cross join lateral (
      select d.id, d.app_id, d.next_attempt_at from deliveries d
      where ${PENDING} and d.app_id = apps.app_id and d.next_attempt_at <= ${now} and (d.lease_until is null or d.lease_until <= ${now})
      order by d.next_attempt_at, d.id limit ${perAppLimit}
    ) p
    where apps.app_id is not null and not (apps.app_id = any(${[...picks.saturated]}::bigint[]))
    order by p.next_attempt_at, p.id
    limit ${request.limit + picks.ids.length}`.execute(db);
  return rows;
}

/** SQLite has no LATERAL: the apps in one statement, then each app's range (each a few microseconds). */
async function oldestPerAppSqlite(db: Kysely<Database>, request: PickRequest, picks: Picks): Promise<Candidate[]> {
  const { now, perAppLimit } = request;
  const apps = await sql<{ app_id: number }>`${APPS_WITH_PENDING} select app_id from apps where app_id is not null`.execute(db);
  const rows: Candidate[] = [];
  for (const { app_id: appId } of apps.rows) {
    if (picks.saturated.has(appId)) continue;
    const range = await sql<Candidate>`
      select id, app_id, next_attempt_at from deliveries
      where ${PENDING} and app_id = ${appId} and next_attempt_at <= ${now} and (lease_until is null or lease_until <= ${now})
      order by next_attempt_at, id limit ${perAppLimit}`.execute(db);
    rows.push(...range.rows);
  }
  return rows.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id);
}
