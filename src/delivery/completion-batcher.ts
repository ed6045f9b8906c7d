import type { Completion, DeliveryQueue, Lease } from './delivery-queue.js';

interface Entry {
  id: number;
  lease: Lease;
  completion: Completion;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes send results in batches: whatever finished while the previous batch was being written goes
 * into the next one, so a lone result is written at once and a busy worker commits far less often
 * than it sends. Each caller still learns whether its own result was recorded.
 */
export class CompletionBatcher {
  private pending: Entry[] = [];
  private writing: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly maxBatch = 256,
  ) {}

  record(id: number, lease: Lease, completion: Completion): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ id, lease, completion, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing || this.scheduled) return;
    this.scheduled = true;
    // Results that arrive in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.writing = this.write().finally(() => {
        this.writing = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    });
  }

  private async write(): Promise<void> {
    const batch = this.pending.splice(0, this.maxBatch);
    try {
      const recorded = await this.queue.completeMany(batch);
      for (const entry of batch) entry.resolve(recorded.has(entry.id));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    }
  }
}
