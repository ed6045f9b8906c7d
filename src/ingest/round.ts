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

  add<A, R>(statement: BatchedStatement<A, R>, arg: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = statement as BatchedStatement<unknown, unknown>;
      const calls = this.calls.get(key) ?? [];
      calls.push({ arg, resolve: resolve as (value: unknown) => void, reject });
      this.calls.set(key, calls);
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
    for (const [statement, calls] of batches) {
      statement.run(this.trx, calls.map((call) => call.arg)).then(
        (results) => calls.forEach((call, i) => call.resolve(results[i])),
        (error: unknown) => calls.forEach((call) => call.reject(error)),
      );
    }
  }
}
