import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { dialects } from '../helpers/database.js';

const serial = (i: number) => (0xa0000000 + i).toString(16).toUpperCase();
const csv = (serials: string[], key = '1A2B3C4D') => ['SERIAL;KEY;PAC', ...serials.map((s) => `${s};${key};0123456789ABCDEF`)].join('\n');

describe.each(dialects)('catalog import (%s)', (dialect) => {
  let app: TestApp;
  afterEach(async () => app?.close());

  it('writes in chunks that commit one by one, reporting each, and a second run updates', async () => {
    app = await startApp(dialect);
    const serials = Array.from({ length: 450 }, (_, i) => serial(i)).reverse();
    const progress: number[] = [];
    expect(await app.context.catalog.import(csv(serials), (done) => progress.push(done))).toEqual({ created: 450, updated: 0 });
    expect(progress).toEqual([200, 400, 450]);
    expect(await app.context.catalog.import(csv(serials.slice(0, 10), 'DEADBEEF'))).toEqual({ created: 0, updated: 10 });
    const listed = await app.context.catalog.list(1000);
    expect(listed).toHaveLength(450);
    expect(listed.filter((m) => m.key === 'DEADBEEF').map((m) => m.serial)).toEqual(serials.slice(0, 10).sort());
    // Every module has its own device.
    const devices = await app.context.storage.db.selectFrom('devices').select('serial').where('idx', '=', 0).execute();
    expect(devices).toHaveLength(450);
  });

  it.runIf(dialect === 'postgres')('runs beside ingestion of the same modules without a deadlock or a failed uplink', async () => {
    app = await startApp(dialect, { SNSR_LOCK_TIMEOUT_MS: '5000' });
    const count = 1200;
    const serials = Array.from({ length: count }, (_, i) => serial(i));
    await app.context.catalog.import(csv(serials));
    // Re-imported in reverse file order (every row updated, so locked) while uplinks of those very
    // modules are ingested: a lock order that differed from ingestion's would deadlock.
    let stop = false;
    let sent = 0;
    const traffic = (async () => {
      const failures: unknown[] = [];
      for (let round = 1; !stop; round++) {
        const batch = Array.from({ length: 64 }, (_, i) => serials[(round * 64 + i * 17) % count]!);
        const results = await Promise.allSettled(
          batch.map((device, i) => app.context.ingest.receive({ device, time: 1_714_000_000 + round * 100 + i, data: '00000046', seqNumber: (round * 64 + i) % 4096 })),
        );
        sent += batch.length;
        failures.push(...results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason));
      }
      return failures;
    })();
    const imports = await Promise.allSettled([0, 1, 2].map((k) => app.context.catalog.import(csv([...serials].reverse(), `0000000${k}`))));
    stop = true;
    const failures = await traffic;
    expect(imports.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(0);
  }, 120_000);
});
