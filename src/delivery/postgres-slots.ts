import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { slotMargin } from './app-slots.js';
import type { AppSlots, SlotFence } from './app-slots.js';
import { TickBatch } from './tick-batch.js';

const NOW = sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

interface Held {
  slots: Set<number>;
  /** `performance.now()` until which they are surely still ours. */
  validUntil: number;
  /**
   * Slots taken since the last renewal was asked for, with when their take answered: a renewal
   * asked for before that may have read the table before they were in it.
   */
  taken: Map<number, number>;
}

/**
 * Sending slots in the `delivery_slots` table, one row per (app, slot) naming its holder and its
 * end on the database clock. A slot past its end is free for any worker to take; its holder renews
 * it as each send starts (the fence), so a slot lives as long as its holder keeps sending and ends
 * one lifetime after a worker stalls or dies. Statements run on the shared pool: no connection of
 * its own, no session state (a transaction-mode pooler is fine).
 */
export class PostgresSlots implements AppSlots {
  readonly shared = true;
  private readonly mine = new Map<number, Held>();
  private readonly fences = new TickBatch<number, SlotFence>((apps) => this.renew(apps), { held: 0, validUntil: 0 });
  /** Acquisitions and releases in the order asked, so a release is never overtaken by an earlier acquisition. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly acquiring = new Set<number>();

  constructor(
    private readonly db: Kysely<Database>,
    /** Names this worker in the table. */
    private readonly holder: string,
    private readonly limit: number,
    private readonly ttlMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  held(appId: number): number {
    const held = this.mine.get(appId);
    return held && performance.now() < held.validUntil ? held.slots.size : 0;
  }

  acquire(appId: number, want: number): Promise<number | undefined> {
    this.acquiring.add(appId);
    return this.serially(() => this.take(appId, want)).finally(() => this.acquiring.delete(appId));
  }

  private async take(appId: number, want: number): Promise<number | undefined> {
    if (Math.min(want, this.limit) <= this.held(appId)) return this.held(appId);
    const current = this.held(appId) > 0 ? this.mine.get(appId)! : { slots: new Set<number>(), validUntil: Infinity, taken: new Map<number, number>() };
    const candidates = Array.from({ length: this.limit }, (_, slot) => slot).filter((slot) => !current.slots.has(slot));
    const missing = Math.min(want, this.limit) - current.slots.size;
    const asked = performance.now();
    try {
      // The first free candidates (no row, ended, or already ours), as many as are missing and no
      // more: slots held beyond what a worker sends shut other workers out of the app. Nothing
      // waits on another worker; one taking the same slot meanwhile makes the upsert skip it.
      const { rows } = await sql<{ slot: number }>`
        with clock as (select ${NOW} as ms),
        free as (
          select c.slot from unnest(${candidates}::int[]) as c(slot) cross join clock
          left join delivery_slots s on s.app_id = ${appId} and s.slot = c.slot
          where s.slot is null or s.until_ms <= clock.ms or s.holder = ${this.holder}
          order by c.slot limit ${missing})
        insert into delivery_slots (app_id, slot, holder, until_ms)
        select ${appId}, free.slot, ${this.holder}, clock.ms + ${this.ttlMs} from free cross join clock
        on conflict (app_id, slot) do update set holder = excluded.holder, until_ms = excluded.until_ms
        where delivery_slots.until_ms <= excluded.until_ms - ${this.ttlMs} or delivery_slots.holder = excluded.holder
        returning slot`.execute(this.db);
      if (rows.length > 0) {
        const answered = performance.now();
        for (const row of rows) {
          current.slots.add(Number(row.slot));
          current.taken.set(Number(row.slot), answered);
        }
        current.validUntil = Math.min(current.validUntil, asked + this.ttlMs - slotMargin(this.ttlMs));
        this.mine.set(appId, current);
      }
    } catch (error) {
      this.onError(error);
      return undefined;
    }
    return this.held(appId);
  }

  fence(appId: number): Promise<SlotFence> {
    return this.fences.get(appId).catch((error: unknown) => {
      this.onError(error);
      return { held: 0, validUntil: 0 };
    });
  }

  release(appId: number): Promise<void> {
    // Not ours from now on, before the rows go: no send may start on a slot being given back. An
    // acquisition still queued would leave rows behind: they go too.
    if (!this.mine.delete(appId) && !this.acquiring.has(appId)) return Promise.resolve();
    return this.serially(async () => {
      this.mine.delete(appId);
      await this.db.deleteFrom('delivery_slots').where('app_id', '=', appId).where('holder', '=', this.holder).execute();
    }).catch(this.onError);
  }

  async close(): Promise<void> {
    await this.queue;
    this.mine.clear();
    await this.db.deleteFrom('delivery_slots').where('holder', '=', this.holder).execute().catch(this.onError);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Moves the end of this worker's live slots of these apps one lifetime ahead; what it still holds.
   * Slots whose take answered after this renewal was asked for are kept as the take left them: the
   * update may have run before they were in the table (a take and a renewal run side by side, on
   * two connections), and not finding them says nothing of them.
   */
  private async renew(apps: number[]): Promise<Map<number, SlotFence>> {
    const asked = performance.now();
    const { rows } = await sql<{ app_id: number; slot: number }>`
      with clock as (select ${NOW} as ms)
      update delivery_slots set until_ms = clock.ms + ${this.ttlMs} from clock
      where holder = ${this.holder} and app_id = any(${apps}::bigint[]) and until_ms > clock.ms
      returning app_id, slot`.execute(this.db);
    const renewedUntil = asked + this.ttlMs - slotMargin(this.ttlMs);
    const fences = new Map<number, SlotFence>();
    for (const appId of apps) {
      const slots = new Set(rows.filter((row) => Number(row.app_id) === appId).map((row) => Number(row.slot)));
      const previous = this.held(appId) > 0 ? this.mine.get(appId) : undefined;
      const taken = new Map([...(previous?.taken ?? [])].filter(([, answered]) => answered > asked));
      for (const slot of taken.keys()) slots.add(slot);
      // Slots kept from a take are good until the take said: the older of the two ends counts.
      const validUntil = taken.size > 0 ? Math.min(renewedUntil, previous!.validUntil) : renewedUntil;
      if (slots.size === 0) this.mine.delete(appId);
      else this.mine.set(appId, { slots, validUntil, taken });
      fences.set(appId, { held: slots.size, validUntil: slots.size > 0 ? validUntil : 0 });
    }
    return fences;
  }
}
