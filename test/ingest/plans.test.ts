import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames } from '../helpers/uplinks.js';
import { catalogCsv, generatedModules } from '../../src/simulator/fleet.js';

interface Prepared {
  name: string;
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

// A quiet server: one uplink at a time, so every round carries one module's uplink, the case in
// which PostgreSQL finds a plan made with the arrays' values cheaper than the one made without.
describe.runIf(dialects.includes('postgres'))('hot ingest statements on PostgreSQL', () => {
  let app: TestApp;
  let prepared: Prepared[];
  beforeAll(async () => {
    // One connection: every statement below is prepared in the session read at the end.
    app = await startApp('postgres', { SNSR_DATABASE_POOL_SIZE: '1' });
    await app.context.catalog.import(catalogCsv(generatedModules(3)));
    const serials = (await app.context.storage.db.selectFrom('modules').select('serial').orderBy('serial').execute()).map((r) => r.serial);
    const post = async (payload: object) => {
      const answer = await app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload });
      expect(answer.statusCode, answer.body).toBe(200);
    };
    for (let n = 0; n < 12; n++) {
      const device = serials[n % serials.length]!;
      const time = 1_800_000_000 + n;
      // A child's event sent once, then again with the retry bit set (a repetition: recent frames
      // are read), and heard by a second station (a copy: the raw message is looked up).
      const data = frames.tempHigh(n, 1 + (n % 3));
      await post({ device, time, data, seqNumber: 2 * n, station: 'A001', rssi: -110 });
      await post({ device, time: time + 1, data: `${(parseInt(data.slice(0, 2), 16) | 0x80).toString(16)}${data.slice(2)}`, seqNumber: 2 * n + 1, station: 'A001', rssi: -110 });
      await post({ device, time: time + 1, data: `${(parseInt(data.slice(0, 2), 16) | 0x80).toString(16)}${data.slice(2)}`, seqNumber: 2 * n + 1, station: 'A002', rssi: -100 });
    }
    prepared = (await sql<Prepared>`SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements`.execute(app.context.storage.db)).rows;
  });
  afterAll(() => app.close());

  const lookups = ['FROM modules m JOIN devices d', 'FROM raw_messages WHERE module_serial = u.serial', 'FROM devices WHERE module_serial = s.serial', 'FROM messages WHERE module_serial = s.serial'];

  it('are planned without their values once PostgreSQL has compared, not again on every run', () => {
    for (const lookup of lookups) expect(prepared.filter((p) => p.statement.includes(lookup)), lookup).toHaveLength(1);
    const ran = prepared.filter((p) => p.generic_plans + p.custom_plans > 6);
    expect(ran.length).toBeGreaterThanOrEqual(lookups.length);
    // PostgreSQL makes five plans with the values before it weighs the one without them.
    for (const p of ran) expect({ statement: p.statement, custom_plans: p.custom_plans }).toEqual({ statement: p.statement, custom_plans: 5 });
  });

  // A tiny table is best scanned, and PostgreSQL plans again once it has analyzed the grown table;
  // a lookup per element must stay one even in a plan made while the table was tiny.
  it('look rows up by index, element by element, however small the tables were when planned', async () => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(app.context.storage.db);
    try {
      for (const [i, { statement }] of prepared.filter((p) => p.statement.includes('CROSS JOIN LATERAL')).entries()) {
        const parameters = new Set(statement.match(/\$\d+/g)).size;
        await sql.raw(`PREPARE snsr_plan_test_${i} AS ${statement}`).execute(app.context.storage.db);
        const plan = await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE snsr_plan_test_${i}(${Array(parameters).fill('NULL').join(', ')})`).execute(app.context.storage.db);
        const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
        await sql.raw(`DEALLOCATE snsr_plan_test_${i}`).execute(app.context.storage.db);
        expect(text, statement).not.toMatch(/Seq Scan/);
      }
    } finally {
      await sql`RESET plan_cache_mode`.execute(app.context.storage.db);
    }
  });
});

// Plans made once per connection outlive the statistics they were made from: made while a fresh
// catalog's tables were near empty, the batched updates scanned every module and device per round.
describe.runIf(dialects.includes('postgres'))('hot ingest statements after a catalog import on PostgreSQL', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp('postgres', { SNSR_DATABASE_POOL_SIZE: '1' });
    await app.context.catalog.import(catalogCsv(generatedModules(1000)));
  });
  afterAll(() => app.close());

  it('update modules and devices found by index, not by scanning the tables', async () => {
    const db = app.context.storage.db;
    const serials = (await db.selectFrom('modules').select('serial').orderBy('serial').limit(16).execute()).map((r) => r.serial);
    // A round of uplinks from several modules: the batched statements are prepared and planned.
    const answers = await Promise.all(
      serials.map((device, n) =>
        app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload: { device, time: 1_800_000_000 + n, data: frames.tempHigh(n, 1), seqNumber: n, station: 'A001', rssi: -110 } }),
      ),
    );
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
    const [update] = (await sql<Prepared>`SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%UPDATE modules m%UPDATE devices d%'`.execute(db)).rows;
    expect(update).toBeDefined();
    await sql`SET plan_cache_mode = force_generic_plan`.execute(db);
    try {
      const parameters = new Set(update!.statement.match(/\$\d+/g)).size;
      await sql.raw(`PREPARE snsr_plan_test_update AS ${update!.statement}`).execute(db);
      const plan = await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE snsr_plan_test_update(${Array(parameters).fill('NULL').join(', ')})`).execute(db);
      await sql`DEALLOCATE snsr_plan_test_update`.execute(db);
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Update on modules/);
      expect(text).not.toMatch(/Seq Scan on (modules|devices)/);
    } finally {
      await sql`RESET plan_cache_mode`.execute(db);
    }
  });
});
