import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const run = promisify(execFile);
const HELPER = new URL('../../dist/cli/heap-growth.js', import.meta.url).href;

/**
 * A process with 20 MB of live objects that keeps promoting short-lived ones to the old generation,
 * as a busy server does; prints the largest heap V8 held meanwhile, in bytes.
 */
const CHURN = `
import { getHeapStatistics } from 'node:v8';
const { limitHeapGrowth } = await import(${JSON.stringify(HELPER)});
limitHeapGrowth(Number(process.argv[1]));
const live = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x'.repeat(100) + i }));
const ring = new Array(50000);
let peak = 0;
for (let i = 0; i < 3000000; i++) {
  ring[i % ring.length] = { i, s: 'y' + i, a: [i, i + 1] };
  if (i % 10000 === 0) peak = Math.max(peak, getHeapStatistics().total_heap_size);
}
console.log(peak, live.length);
`;

async function peakHeap(percent: number): Promise<number> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHURN, String(percent)]);
  return Number(stdout.split(' ')[0]);
}

describe('limitHeapGrowth (SNSR_HEAP_GROWTH_PERCENT)', () => {
  it('reads the percentage from the environment: 50 unless set, 0 for V8 left alone, nonsense refused', () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
    expect(loadConfig({ SNSR_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(() => loadConfig({ SNSR_HEAP_GROWTH_PERCENT: '-5' })).toThrow(/SNSR_HEAP_GROWTH_PERCENT must be an integer from 0 to 1000, got "-5"/);
  });

  it('keeps the heap of a process that promotes much garbage far below what V8 left alone reaches', async () => {
    // Measured on this machine: 155–165 MB at 50 %; left alone V8 reached 330–336 MB, though on a
    // busy machine it sometimes collected early and stayed at ~97 MB (at 300 % too), so a run left
    // alone is no yardstick: two limited runs must each stay under a bound between the two.
    const peaks = await Promise.all([peakHeap(50), peakHeap(50)]);
    for (const peak of peaks) {
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(230 * 2 ** 20);
    }
  });
});
