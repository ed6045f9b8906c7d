import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { Round } from './round.js';

/** A job's work on the batch's transaction; in rounds (see `rounds`), `round` batches its statements with its round's. */
type Work<T> = (trx: Kysely<Database>, round?: Round) => Promise<T>;

interface Job {
  /** Jobs of one batch run in key order, so concurrent batches take row locks in the same order. */
  key: string;
  /** Jobs of one key and one twin run in the same round (see `rounds`). */
  twin?: string;
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most jobs committed together. */
  maxBatch: number;
  /** Batches in flight at once: 1 for SQLite's single connection, a few for a PostgreSQL pool. */
  concurrency: number;
  /**
   * A batch starts beside one in flight only once this many jobs wait (default 1): under load a
   * batch's statements and commit serve more jobs, and an idle server still starts a lone job at once.
   */
  overlapAt?: number;
  /**
   * How long a batch may wait for more jobs before it starts (ms; default 0).
   * Every commit costs the same round trips and log flush whatever it carries, so a fuller one
   * costs each job less. A batch waits only after a light one: fewer than half `overlapAt` jobs,
   * others coming while it ran, settled less than this long ago. It starts as soon as `overlapAt`
   * wait: a lone job, a client sending one job after the other, and batches that fill anyway (where
   * waiting would only idle the connection between them) never wait.
   */
  delayMs?: number;
  /** Errors a job throws before writing anything (a rejected uplink): they fail that job only. */
  isRejection: (error: unknown) => boolean;
  /**
   * Run a batch in rounds instead of one job after the other: a round holds at most one job per
   * key, run side by side with a {@link Round} that merges their statements; a key's later jobs go
   * to later rounds, in order. Only for jobs of different keys that touch disjoint rows. Jobs given
   * the same twin as an earlier job of their key join that job's round instead: the statements they
   * share must then serve the twins in their order (as ingest's do for copies of one uplink).
   */
  rounds?: boolean;
}

/**
 * Group commit: jobs are committed together, each still seeing the effects of the jobs before it.
 * A commit costs far more than an uplink's queries (SQLite writes every touched page to the WAL and
 * now and then checkpoints), so a job does not start its own transaction: the batch starts once the
 * event loop has read every request already waiting (`setImmediate`), and jobs that arrive while a
 * batch runs go into the next one. A lone uplink waits for nothing but that turn of the loop.
 *
 * Each job stays atomic: a rejection happens before its first write, and any other failure rolls
 * the whole batch back and re-runs its jobs one transaction each, so only the failing job fails.
 * A job's promise settles only after its transaction has committed.
 */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  private readonly queue: Job[] = [];
  private active = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];
  /**
   * When the last batch settled (`performance.now()`), and whether it was a small one during which
   * jobs came: steady traffic that leaves commits light.
   */
  private lastSettled = -Infinity;
  private light = false;
  /** A batch waiting for more jobs, started by this timer at the latest. */
  private waiting: NodeJS.Timeout | undefined;
  /** Set while the timer starts the batch that waited. */
  private waited = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: GroupCommitOptions,
  ) {}

  run<T>(key: string, work: Work<T>, twin?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ key, twin, work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  /** Resolves once every job queued so far has settled. */
  drain(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.active < this.options.concurrency && this.queue.length > 0) {
      const few = this.queue.length < (this.options.overlapAt ?? 1);
      if (few && (this.active > 0 || this.delayed())) return;
      clearTimeout(this.waiting);
      this.waiting = undefined;
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.active++;
      void this.commit(batch).finally(() => {
        this.active--;
        this.lastSettled = performance.now();
        this.light = this.queue.length > 0 && batch.length < (this.options.overlapAt ?? 1) / 2;
        this.pump();
        if (this.active === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  /** Whether the next batch waits for more jobs (see `delayMs`), its timer then set. */
  private delayed(): boolean {
    if (this.waiting !== undefined) return true;
    const delayMs = this.options.delayMs ?? 0;
    if (this.waited || delayMs <= 0 || !this.light || performance.now() - this.lastSettled >= delayMs) return false;
    this.waiting = setTimeout(() => {
      this.waiting = undefined;
      this.waited = true;
      this.pump();
      this.waited = false;
    }, delayMs);
    return true;
  }

  private async commit(batch: Job[]): Promise<void> {
    batch.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const outcomes: Outcome[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        if (this.options.rounds) return this.inRounds(trx, batch, outcomes);
        for (const job of batch) {
          try {
            outcomes.push({ ok: true, value: await job.work(trx) });
          } catch (error) {
            if (!this.options.isRejection(error)) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      if (batch.length === 1) return batch[0].reject(error);
      for (const job of batch) {
        try {
          job.resolve(await this.db.transaction().execute((trx) => this.alone(trx, job)));
        } catch (alone) {
          job.reject(alone);
        }
      }
      return;
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  private alone(trx: Kysely<Database>, job: Job): Promise<unknown> {
    if (!this.options.rounds) return job.work(trx);
    const round = new Round(trx);
    return round.job(() => job.work(trx, round));
  }

  /** The batch's jobs in rounds (one job per key each, with its twins), a round's jobs side by side. */
  private async inRounds(trx: Kysely<Database>, batch: Job[], outcomes: Outcome[]): Promise<void> {
    const rounds: number[][] = [];
    const seen = new Map<string, number>();
    const twins = new Map<string, number>();
    batch.forEach((job, i) => {
      const twin = job.twin === undefined ? undefined : `${job.key}\n${job.twin}`;
      let n = twin === undefined ? undefined : twins.get(twin);
      if (n === undefined) {
        n = seen.get(job.key) ?? 0;
        seen.set(job.key, n + 1);
        if (twin !== undefined) twins.set(twin, n);
      }
      (rounds[n] ??= []).push(i);
    });
    for (const indexes of rounds) {
      const round = new Round(trx);
      const settled = await Promise.allSettled(indexes.map((i) => round.job(() => batch[i].work(trx, round))));
      // Every job of the round has settled: nothing runs on the transaction any more if it must roll back.
      const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected' && !this.options.isRejection(s.reason));
      if (failure) throw failure.reason;
      settled.forEach((s, j) => (outcomes[indexes[j]] = s.status === 'fulfilled' ? { ok: true, value: s.value } : { ok: false, error: s.reason }));
    }
  }
}
