import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.js';
import { DomainError } from '../domain/errors.js';
import { GroupCommit } from './group-commit.js';
import { IngestStore } from './ingest-store.js';
import { runPipeline } from './pipeline.js';
import { uplinkIdentity } from './steps/store-raw.js';
import type { DateText } from './device-context.js';
import type { IngestResult, Uplink } from './uplink.js';

/**
 * Formatting a date in a time zone (Intl) costs more than the rest of a message's JSON; a device's
 * `firstseen` repeats on every message and many `lastseen` values share their second.
 */
function remembered(dateText: DateText, size = 4096): DateText {
  const known = new Map<number, string>();
  return (ms) => {
    let text = known.get(ms);
    if (text === undefined) {
      if (known.size >= size) known.clear();
      text = dateText(ms);
      known.set(ms, text);
    }
    return text;
  };
}

/**
 * PostgreSQL's default commit delay. One process at a fixed 1,000 uplinks/s: 6.5 uplinks per commit
 * instead of 4.7, 11 % less CPU per uplink (snsr and PostgreSQL), 2 ms more at the median of the
 * acknowledgements; three saturated processes: 32 % less (see "Ingest throughput" in the README).
 */
const DEFAULT_POSTGRES_DELAY_MS = 2;

export interface IngestOptions {
  /** How device dates are written into each message's `ctxt`. */
  dateText: DateText;
  /** Most uplinks committed in one transaction. */
  maxBatch?: number;
  /**
   * Longest wait for more uplinks before a commit that follows a light one (ms; `GroupCommit`'s
   * `delayMs`): by default 2 on PostgreSQL, whose every commit costs round trips to the server, and
   * 0 on SQLite.
   */
  commitDelayMs?: number;
  /** Told of every uplink once committed (or refused), with the seconds it took: metrics, alert emails. */
  observe?: (outcome: { result: IngestResult } | { error: unknown }, seconds: number) => void;
}

/**
 * Takes uplinks from the Sigfox network: each runs the pipeline atomically, and its promise resolves
 * once it is committed (durable) — only then may the network be acknowledged.
 */
export class IngestService {
  private readonly commits: GroupCommit;
  private readonly dateText: DateText;

  constructor(
    private readonly storage: Storage,
    private readonly log: Logger,
    private readonly options: IngestOptions,
  ) {
    this.dateText = remembered(options.dateText);
    const maxBatch = options.maxBatch ?? 64;
    this.commits = new GroupCommit(storage.db, {
      maxBatch,
      // Overlapping batches are safe only where module rows can be locked. On PostgreSQL two overlap
      // (measured: more make smaller batches and more round trips), leaving the pool room for reads;
      // SQLite has one connection anyway.
      concurrency: storage.capabilities.skipLocked ? 2 : 1,
      // The second only once a quarter of a full batch waits: overlapping at once split 32 uplinks in
      // flight into batches of ~9, each paying the same six statements (measured: a third fewer
      // statements and about a fifth less PostgreSQL CPU per uplink at 16, throughput no lower).
      overlapAt: Math.max(1, Math.floor(maxBatch / 4)),
      delayMs: options.commitDelayMs ?? (storage.capabilities.skipLocked ? DEFAULT_POSTGRES_DELAY_MS : 0),
      isRejection: (error) => error instanceof DomainError,
      // PostgreSQL: the uplinks of a batch side by side, one statement per table for all of them.
      rounds: storage.capabilities.skipLocked,
    });
  }

  receive(uplink: Uplink): Promise<IngestResult> {
    const rowLocks = this.storage.capabilities.skipLocked;
    const env = { log: this.log, dateText: this.dateText, now: Date.now };
    // Other stations' copies of an uplink (its twins) share its round: one statement serves them all.
    const done = this.commits.run(uplink.device.toUpperCase(), (trx, round) => runPipeline(new IngestStore(trx, rowLocks, round), uplink, env), uplinkIdentity(uplink));
    // Simulated uplinks are not network traffic: metrics leave them out.
    const observe = uplink.simulated ? undefined : this.options.observe;
    if (!observe) return done;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    return done.then(
      (result) => (observe({ result }, seconds()), result),
      (error: unknown) => {
        observe({ error }, seconds());
        throw error;
      },
    );
  }

  /** Waits for every uplink received so far to be committed. */
  drain(): Promise<void> {
    return this.commits.drain();
  }
}
