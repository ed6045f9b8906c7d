import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

type Work<T> = (trx: Kysely<Database>) => Promise<T>;

interface Job {
  /** Jobs of one batch run in key order, so concurrent batches take row locks in the same order. */
  key: string;
  work: Work<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Most jobs committed together. */
  maxBatch: number;
  /** Batches in flight at once: 1 for SQLite's single connection, a few for a PostgreSQL pool. */
  concurrency: number;
  /** Errors a job throws before writing anything (a rejected uplink): they fail that job only. */
  isRejection: (error: unknown) => boolean;
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
export class GroupCommit {
  private readonly queue: Job[] = [];
  private active = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: GroupCommitOptions,
  ) {}

  run<T>(key: string, work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ key, work, resolve: resolve as (value: unknown) => void, reject });
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
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.active++;
      void this.commit(batch).finally(() => {
        this.active--;
        this.pump();
        if (this.active === 0 && this.queue.length === 0) for (const done of this.idle.splice(0)) done();
      });
    }
  }

  private async commit(batch: Job[]): Promise<void> {
    batch.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
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
          job.resolve(await this.db.transaction().execute((trx) => job.work(trx)));
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
}
