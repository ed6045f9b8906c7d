import DataLoader from 'dataloader';

/**
 * Concurrent reads of one kind coalesced into batches, each answered by one statement: under load
 * a round trip and a statement's fixed cost serve many requests instead of one. At most
 * `maxInFlight` batches run at once; reads arriving meanwhile wait and leave together with the
 * next batch, so batches grow with the load and a lone read leaves at once (after the current turn
 * of the event loop, which gathers the reads that arrived with it).
 *
 * `runBatch(reads)` answers each read in order: a value, undefined (nothing found), or an Error
 * for that read alone. When it throws, every read of the batch fails with its error.
 */
export class ReadBatches<Read, Answer> {
  /** Reads sent and the batches (statements) that carried them, since the process started. */
  readonly sent = { reads: 0, batches: 0 };
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly loader: DataLoader<Read, Answer | undefined>;

  private readonly maxInFlight: number;

  constructor(
    runBatch: (reads: readonly Read[]) => Promise<readonly (Answer | undefined | Error)[]>,
    options: { maxInFlight: number; maxBatchSize: number },
  ) {
    this.maxInFlight = options.maxInFlight;
    const run = async (reads: readonly Read[]) => {
      this.sent.reads += reads.length;
      this.sent.batches++;
      try {
        return await runBatch(reads);
      } finally {
        this.finished();
      }
    };
    // No cache: each read asks the database, as an unbatched one would.
    this.loader = new DataLoader(run, { cache: false, maxBatchSize: options.maxBatchSize, batchScheduleFn: (dispatch) => this.schedule(dispatch) });
  }

  read(read: Read): Promise<Answer | undefined> {
    return this.loader.load(read);
  }

  /** Called once per batch, when its first read arrives: the batch leaves now, or when one in flight ends. */
  private schedule(dispatch: () => void): void {
    if (this.running < this.maxInFlight) {
      this.running++;
      setImmediate(dispatch);
    } else {
      this.waiting.push(dispatch);
    }
  }

  private finished(): void {
    this.running--;
    const next = this.waiting.shift();
    if (next !== undefined) this.schedule(next);
  }
}
