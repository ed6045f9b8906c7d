import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/monitoring/metrics.js';

const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};

describe('docs/grafana-dashboard.json', () => {
  it('only queries metrics snsr exports', async () => {
    const metrics = new Metrics({
      queue: async () => ({ depth: 0, oldestMs: 0 }),
      poolUse: () => ({ max: 1, open: 1, busy: 0, waiting: 0 }),
      walBytes: () => 0,
      deliveries: () => ({ delivered: 0, retrying: 0, failed: 0 }),
      historyBatches: () => ({ reads: 0, batches: 0 }),
    });
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((metric) => metric.name));
    const queried = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => target.expr.match(/snsr_[a-z0-9_]+/g) ?? []));
    expect(queried.length).toBeGreaterThan(10);
    for (const name of queried) expect(exported.has(name.replace(/_(bucket|sum|count)$/, '')), name).toBe(true);
  });
});
