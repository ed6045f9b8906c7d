/**
 * Acknowledgement latencies in a log-scale histogram (1 % wide buckets from 10 µs to ~10 min): fixed
 * memory however long the simulator runs, percentiles within 1 %.
 */
export class LatencyHistogram {
  private static readonly MIN_MS = 0.01;
  private static readonly GROWTH = Math.log(1.01);
  private readonly counts = new Uint32Array(1900);
  private total = 0;
  private maxMs = 0;

  record(ms: number): void {
    const bucket = ms <= LatencyHistogram.MIN_MS ? 0 : Math.ceil(Math.log(ms / LatencyHistogram.MIN_MS) / LatencyHistogram.GROWTH);
    this.counts[Math.min(bucket, this.counts.length - 1)]++;
    this.total++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  get count(): number {
    return this.total;
  }

  get max(): number {
    return this.maxMs;
  }

  /** The latency (ms) below which `p` percent of the samples fall; 0 without samples. */
  percentile(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let bucket = 0; bucket < this.counts.length; bucket++) {
      seen += this.counts[bucket];
      if (seen >= rank) return Math.min(LatencyHistogram.MIN_MS * Math.exp(bucket * LatencyHistogram.GROWTH), this.maxMs);
    }
    return this.maxMs;
  }
}
