import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/**
 * A statement that serves many jobs at once: `run` gets every job's argument and answers with each
 * job's result, in the same order (one round trip instead of one per job).
 */
export interface BatchedStatement<A, R> {
  run(trx: Kysely<Database>, args: A[]): Promise<R[]>;
}

interface Call {
  arg: unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Jobs of one transaction that run side by side, touching disjoint rows (one uplink per module).
 * What they ask of a batched statement is collected and sent as one statement once every job still
 * running waits on the round — or, when some wait on something else, on the next turn of the event
 * loop. Which calls share a statement changes only how many round trips there are, never a result.
 */
export class Round {
  private running = 0;
  private waiting = 0;
  private readonly calls = new Map<BatchedStatement<unknown, unknown>, Call[]>();
  private scheduled = false;

  constructor(readonly trx: Kysely<Database>) {}

  /** Runs `work` as one of the round's jobs. */
  async job<T>(work: () => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.flushIfAllWait();
    }
  }

  /**
   * Queues `arg` for the statement's next run. `alongside`: the calling job already waits on another
   * call made in this same turn, so this one does not count as one more job waiting.
   */
  add<A, R>(statement: BatchedStatement<A, R>, arg: A, alongside = false): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = statement as BatchedStatement<unknown, unknown>;
      const calls = this.calls.get(key) ?? [];
      calls.push({ arg, resolve: resolve as (value: unknown) => void, reject });
      this.calls.set(key, calls);
      if (alongside) return;
      this.waiting++;
      if (!this.flushIfAllWait() && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flushIfAllWait(): boolean {
    if (this.waiting === 0 || this.waiting < this.running) return false;
    // Every job waits on the round: send now (after the caller has its promise).
    queueMicrotask(() => this.flush());
    return true;
  }

  private flush(): void {
    const batches = [...this.calls];
    this.calls.clear();
    this.waiting = 0;
    if (batches.length === 0) return;
    // Answered together once every statement of the flush is done: the jobs go on side by side
    // and reach their next statements in the same turn, rather than in as many rounds as answers.
    const runs = batches.map(([statement, calls]) => statement.run(this.trx, calls.map((call) => call.arg)));
    void Promise.allSettled(runs).then((settled) =>
      settled.forEach((outcome, i) => {
        const calls = batches[i][1];
        if (outcome.status === 'fulfilled') calls.forEach((call, j) => call.resolve(outcome.value[j]));
        else calls.forEach((call) => call.reject(outcome.reason));
      }),
    );
  }
}
