import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { PAGE_WINDOW_MS } from '../../src/storage/message-pages.js';
import type { TimeRange } from '../../src/storage/message-pages.js';
import { storedPageJson } from '../../src/wire/message.js';

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1) + 10 * DAY + 12 * 3600 * 1000;

// Pages read by month window on PostgreSQL (see `PAGE_WINDOW_MS`) must be the pages read whole:
// the same messages in the same order, whatever the bounds, the window's fill and the module's state.
describe.each(dialects)('history pages across months (%s)', (dialect) => {
  let app: TestApp;
  /** Each module's messages as stored: id and time. */
  const stored = new Map<string, { id: number; when: number }[]>();

  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_DATABASE_POOL_SIZE: '1' });
    const db = app.context.storage.db;
    if (dialect === 'postgres') {
      // Months before this one, as a server that has run for them has them.
      for (let k = 1; k <= 4; k++) {
        const month = new Date(NOW);
        const from = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - k, 1);
        const to = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - k + 1, 1);
        await sql.raw(`CREATE TABLE messages_test_past${k} PARTITION OF messages FOR VALUES FROM (${from}) TO (${to})`).execute(db);
      }
    }
    await app.context.repositories.modules.importCatalog(['D1', 'D2', 'D3', 'D4'].map((serial) => ({ serial: `C${serial}`, key: '1A2B3C4D', pac: '0011223344556677' })));
    // CD1: a message a day for 100 days; CD2: one a week; CD3: daily, its newest time unknown to
    // the module; CD4: daily, the module's newest time a month behind its messages.
    const plans: Record<string, { every: number; newest: (times: number[]) => number | null }> = {
      CD1: { every: DAY, newest: (times) => Math.max(...times) },
      CD2: { every: 7 * DAY, newest: (times) => Math.max(...times) },
      CD3: { every: DAY, newest: () => null },
      CD4: { every: DAY, newest: (times) => Math.max(...times) - 35 * DAY },
    };
    for (const [serial, plan] of Object.entries(plans)) {
      const device = await db.selectFrom('devices').select('id').where('module_serial', '=', serial).where('idx', '=', 0).executeTakeFirstOrThrow();
      const times = Array.from({ length: Math.floor((100 * DAY) / plan.every) }, (_, i) => NOW - i * plan.every);
      // Two messages at the newest time: ties are ordered by id.
      times.push(times[0]!);
      const rows = times.map((when) => ({
        module_serial: serial, device_id: device.id, raw_id: null, when_ms: when, time_s: Math.floor(when / 1000), type: 'event:templow', station: '1B2C',
        lvl: -120, frame: '00', frame_type: 'srv_frm_event', code: 'event_temp_low', entry_id: 0, stamp: 0, cpt: 0, retry: 0, custom: '{}', contrib: '{}',
        ctxt: '{}', body: `{"when":${when}}`,
      }));
      const ids = await db.insertInto('messages').values(rows).returning(['id', 'when_ms']).execute();
      stored.set(serial, ids.map((row) => ({ id: Number(row.id), when: Number(row.when_ms) })));
      await db.updateTable('modules').set({ last_when_ms: plan.newest(times) }).where('serial', '=', serial).execute();
    }
  });
  afterAll(() => app.close());

  /** The page as a whole read finds it, as message times. */
  const expected = (serial: string, range: TimeRange) =>
    stored
      .get(serial)!
      .filter((m) => (range.before === undefined || m.when < range.before) && (range.after === undefined || m.when > range.after))
      .sort((a, b) => b.when - a.when || b.id - a.id)
      .slice(0, range.limit)
      .map((m) => `{"when":${m.when}}`);

  const ranges: TimeRange[] = [
    { limit: 20 },
    { limit: 1 },
    { limit: 45 },
    { limit: 1000 },
    { limit: 20, before: NOW - 10 * DAY },
    { limit: 20, before: NOW - 60 * DAY },
    { limit: 60, before: NOW - 20 * DAY },
    { limit: 20, after: NOW - 40 * DAY },
    { limit: 100, after: NOW - 40 * DAY },
    { limit: 100, after: NOW - 5 * DAY, before: NOW - DAY },
    { limit: 20, before: NOW - 200 * DAY },
  ];

  it('hold the messages a whole read finds, in order, for the device API and for a token', async () => {
    const pages = app.context.repositories.messagePages;
    for (const serial of ['CD1', 'CD2', 'CD3', 'CD4']) {
      const device = await app.context.storage.db.selectFrom('devices').select('id').where('module_serial', '=', serial).where('idx', '=', 0).executeTakeFirstOrThrow();
      for (const range of ranges) {
        // As the device API sends it: a page's entries may each hold several messages (PostgreSQL joins them).
        const want = `[${expected(serial, range).join(',')}]`;
        expect(storedPageJson(await pages.storedPage({ moduleSerial: serial }, range)), `${serial} ${JSON.stringify(range)}`).toBe(want);
        expect(storedPageJson(await pages.storedPage({ moduleSerial: serial, deviceId: device.id }, range)), `${serial} device ${JSON.stringify(range)}`).toBe(want);
        expect(storedPageJson((await pages.moduleAndPage(serial, range)).page), `${serial} token ${JSON.stringify(range)}`).toBe(want);
      }
    }
  });

  it('hold the same messages when some were stored without their wire form', async () => {
    const db = app.context.storage.db;
    const pages = app.context.repositories.messagePages;
    // Every other message of two modules as if stored before `body` existed: built from its columns.
    for (const serial of ['CD1', 'CD4']) {
      const ids = stored.get(serial)!.filter((_, i) => i % 2 === 1).map((m) => m.id);
      await db.updateTable('messages').set({ body: null }).where('id', 'in', ids).execute();
    }
    const whens = (page: Awaited<ReturnType<typeof pages.storedPage>>) => (JSON.parse(storedPageJson(page)) as { when: number }[]).map((m) => m.when);
    try {
      for (const serial of ['CD1', 'CD4']) {
        const device = await db.selectFrom('devices').select('id').where('module_serial', '=', serial).where('idx', '=', 0).executeTakeFirstOrThrow();
        for (const range of ranges) {
          const want = expected(serial, range).map((body) => (JSON.parse(body) as { when: number }).when);
          expect(whens(await pages.storedPage({ moduleSerial: serial }, range)), `${serial} ${JSON.stringify(range)}`).toEqual(want);
          expect(whens(await pages.storedPage({ moduleSerial: serial, deviceId: device.id }, range)), `${serial} device ${JSON.stringify(range)}`).toEqual(want);
          expect(whens((await pages.moduleAndPage(serial, range)).page), `${serial} token ${JSON.stringify(range)}`).toEqual(want);
        }
      }
    } finally {
      await sql`UPDATE messages SET body = '{"when":' || when_ms || '}' WHERE body IS NULL`.execute(db);
    }
  });

  it('answer reads that arrive together each with its own page, whatever the batch holds', async () => {
    const pages = app.context.repositories.messagePages;
    // Every module with every range, and a module the catalog does not hold, all at once: on
    // PostgreSQL they are read in batches of many, each read with its own bounds.
    const reads = ['CD1', 'CD2', 'CD3', 'CD4', 'CD9'].flatMap((serial) => ranges.map((range) => ({ serial, range })));
    const answers = await Promise.all(reads.map(({ serial, range }) => pages.moduleAndPage(serial, range)));
    reads.forEach(({ serial, range }, i) => {
      const answer = answers[i]!;
      if (serial === 'CD9') return expect(answer, 'a serial the catalog does not hold').toEqual({ module: undefined, page: [] });
      expect(answer.module?.serial).toBe(serial);
      expect(storedPageJson(answer.page), `${serial} token ${JSON.stringify(range)}`).toBe(`[${expected(serial, range).join(',')}]`);
    });
  });

  it.runIf(dialect === 'postgres')('leave the months before the window unread when the window fills the page', async () => {
    const db = app.context.storage.db;
    await Promise.all(['CD1', 'CD2'].map((serial) => app.context.repositories.messagePages.moduleAndPage(serial, { limit: 20 })));
    // The token's read of two modules at once (the modules' columns beside each one's window), as
    // it runs when every message has a body: a VALUES row per read (serial, before, after, limit, place).
    const prepared = (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%string_agg%' AND statement LIKE '%VALUES%'`.execute(db)).rows;
    const statement = prepared.find((p) => new Set(p.statement.match(/\$\d+/g)).size === 10);
    expect(statement).toBeDefined();
    await sql.raw(`PREPARE snsr_window_test AS ${statement!.statement}`).execute(db);
    try {
      // Planned once, for any values (as a named statement runs after its first few times), on the
      // table's statistics (autovacuum gathers them on a server).
      await sql`ANALYZE messages`.execute(db);
      await sql`SET plan_cache_mode = force_generic_plan`.execute(db);
      const plan = await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE snsr_window_test('CD1', NULL, NULL, 20, 1, 'CD2', NULL, NULL, 20, 2)`).execute(db);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      // Each module's window reaches one month back at most: the three months before it are never read, for either.
      const unread = [2, 3, 4].map((k) => new RegExp(`on messages_test_past${k} .*\\(never executed\\)`));
      for (const pattern of unread) expect(text).toMatch(pattern);
      expect(PAGE_WINDOW_MS).toBeLessThanOrEqual(31 * DAY);
      // And each stops at its page's last row: the window's rows merged in order, not all read and sorted.
      expect(text).toMatch(/Merge Append/);
      expect(text).not.toMatch(/Sort Method/);
    } finally {
      await sql`RESET plan_cache_mode`.execute(db);
      await sql`DEALLOCATE snsr_window_test`.execute(db);
    }
  });
});
