import type { Logger } from 'pino';

const rest = (ms: number) => new Promise((resolve) => (ms < 1 ? setImmediate(resolve) : setTimeout(resolve, ms)));

export interface BackgroundJob<T> {
  /** One full round now (or the one already running). */
  runOnce(): Promise<T>;
  /** Runs a round shortly after start (`firstDelayMs`), then every `intervalMs`. */
  start(): BackgroundJob<T>;
  /** Ends the schedule and waits for a round in progress, which stops at its next batch. */
  stop(): Promise<void>;
}

export interface BatchRunner {
  /** Repeats `task` (which deletes at most `batch` rows) until it does less, resting between runs `restFactor` times as long as the last one took. */
  drain(task: () => Promise<number>): Promise<number>;
}

export interface BackgroundJobOptions {
  /** What the job does, for the log line when a round fails. */
  name: string;
  log: Logger;
  /** Rows per statement of `drain`: small, so a big backlog never holds a lock (or SQLite) for long; none, one run. */
  batch?: number;
  /** Rest after each batch this many times as long as it took (default 1: half the time at most). */
  restFactor?: number;
  intervalMs?: number;
  firstDelayMs?: number;
}

/**
 * A periodic clean-up round that works in small batches: one round at a time, yielding to the event
 * loop between batches so requests never queue behind it, and stopping between batches on shutdown.
 */
export function backgroundJob<T>(round: (runner: BatchRunner) => Promise<T>, options: BackgroundJobOptions): BackgroundJob<T> {
  let stopped = false;
  let running: Promise<T> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const runner: BatchRunner = {
    drain: async (task) => {
      let total = 0;
      while (!stopped) {
        const started = performance.now();
        const count = await task();
        total += count;
        if (options.batch === undefined || count < options.batch) break;
        // Rest as long as the batch took, or `restFactor` times as long (a second at most): a backlog
        // takes at most half (a quarter, ...) of the process's and the database's time, and requests
        // waiting behind a batch go first.
        await rest(Math.min((options.restFactor ?? 1) * (performance.now() - started), 1000));
      }
      return total;
    },
  };
  const runOnce = () => {
    running ??= round(runner).finally(() => (running = undefined));
    return running;
  };
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      runOnce()
        .catch((error: unknown) => options.log.error({ err: error }, `${options.name} failed`))
        .finally(() => !stopped && schedule(options.intervalMs ?? 3_600_000));
    }, delay);
    timer.unref();
  };
  const job: BackgroundJob<T> = {
    runOnce,
    start: () => (schedule(options.firstDelayMs ?? 10_000), job),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
  return job;
}
