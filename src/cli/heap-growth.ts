import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8's old generation grow by at most `percent` % past what survived its last full collection
 * before it collects again (V8's `--heap-growing-percent`). Left to itself V8 lets a busy server's
 * heap grow to three or four times its live objects; at 50 % `snsr serve` stayed under 250 MB RSS
 * at the same throughput and CPU per uplink (`npm run bench ingest`). 0 leaves V8's own heuristic.
 * Takes effect from the next collection, so long-running commands call it first thing.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.trunc(percent)}`);
}
