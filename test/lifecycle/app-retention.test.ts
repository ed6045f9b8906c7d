import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { seedUplink } from '../helpers/seed.js';
import { startRetentionPruner } from '../../src/lifecycle/retention-pruner.js';
import { RetentionRepository } from '../../src/storage/retention-repository.js';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });

describe.each(dialects)('per-app retention: precedence and pruning (%s)', (dialect) => {
  let app: TestApp;
  let auth: string;
  let appA: number;
  let appB: number;
  const now = Date.now();
  const db = () => app.context.storage.db;
  const counters = async () =>
    db().selectFrom('devices').select(['serial', 'msgs', 'losts', 'alerts']).where('idx', '=', 0).orderBy('serial').execute();
  const count = async (table: 'messages' | 'raw_messages', serial: string) =>
    Number((await db().selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('module_serial', '=', serial).executeTakeFirstOrThrow()).n);
  /** Moves a module's oldest two messages and raw messages 40 days back, and the third 20 days. */
  const age = async (serial: string) => {
    for (const table of ['messages', 'raw_messages'] as const) {
      const ids = (await db().selectFrom(table).select('id').where('module_serial', '=', serial).orderBy('id').limit(3).execute()).map((row) => row.id);
      const time = table === 'messages' ? 'when_ms' : 'received_at';
      await db().updateTable(table).set({ [time]: now - 40 * DAY }).where('id', 'in', ids.slice(0, 2)).execute();
      await db().updateTable(table).set({ [time]: now - 20 * DAY }).where('id', '=', ids[2]!).execute();
    }
  };
  const post = (url: string) => app.server.inject({ method: 'POST', url: `/iot/developers/${url}`, headers: { authorization: auth } });
  const get = (url: string) => app.server.inject({ method: 'GET', url: `/iot/developers/${url}`, headers: { authorization: auth } });

  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const developer = await createDeveloper(app);
    auth = developer.auth;
    const account = await app.context.accounts.byEmail(developer.email);
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }, { serial: 'BEEF', key: 'DEADBEEF' }]);
    for (const serial of ['C0FE', '0ACE']) for (let i = 0; i < 4; i++) await uplink(app, serial, frames.keepAlive(i), Math.floor(now / 1000) - 3600 + i * 60);
    for (let i = 0; i < 4; i++) await seedUplink(app, { module: 'BEEF', at: now - 3_600_000 + i * 60_000, frame: '1300011C', protocol: 'UDM22', seq: i });
    for (const serial of ['C0FE', '0ACE', 'BEEF']) await age(serial);
    appA = (await app.context.apps.save(account.id, { name: 'archive' })).id;
    appB = (await app.context.apps.save(account.id, { name: 'live' })).id;
    await app.context.apps.attach(account.id, appA, ['C0FE']);
    await app.context.apps.attach(account.id, appB, ['C0FE', '0ACE']);
  });
  afterAll(() => app.close());

  it("answers with the module's own choice first, then the longest app's, then the operator's default, saying which", async () => {
    expect((await post(`apps/retention.json?idApp=${appA}&messages_days=365&raw_days=0`)).json()).toEqual({ id: appA, messages_days: 365, raw_days: 0, defaults: { messages_days: 0, raw_days: 0 } });
    expect((await post(`apps/retention.json?idApp=${appB}&messages_days=10&raw_days=10`)).statusCode).toBe(200);
    expect((await post('modules/retention.json?sn=0ACE&messages_days=60')).statusCode).toBe(200);
    expect((await get(`apps/retention.json?idApp=${appB}`)).json()).toMatchObject({ id: appB, messages_days: 10, raw_days: 10 });

    // C0FE: apps A (365 days, raw forever) and B (10, 10): the longer of each kind, from A.
    expect((await get('modules/retention.json?sn=C0FE')).json()).toEqual({
      serial: 'C0FE', messages_days: null, raw_days: null,
      effective: { messages_days: 365, raw_days: 0 },
      source: { messages_days: { from: 'app', app: appA, name: 'archive' }, raw_days: { from: 'app', app: appA, name: 'archive' } },
    });
    // 0ACE: its own 60 days win over app B's 10 for messages; raw follows B.
    expect((await get('modules/retention.json?sn=0ACE')).json()).toMatchObject({
      effective: { messages_days: 60, raw_days: 10 },
      source: { messages_days: { from: 'module' }, raw_days: { from: 'app', app: appB, name: 'live' } },
    });
    expect((await get('modules/retention.json?sn=BEEF')).json()).toMatchObject({ effective: { messages_days: 0, raw_days: 0 }, source: { messages_days: { from: 'default' } } });
  });

  it('prunes by that precedence in small batches and leaves device counters true', async () => {
    const before = await counters();
    expect(before.map((c) => c.msgs)).toEqual([4, 4, 4]);
    const pruner = startRetentionPruner(new RetentionRepository(db()), { messagesDays: 30, rawDays: 30, alertsDays: 30 }, silent, { batch: 2 });
    // BEEF (default 30): two of each. 0ACE: raw by B's 10 days, three. C0FE: nothing (365 days; raw forever).
    expect(await pruner.runOnce()).toEqual({ messages: 2, raw: 5, alerts: 0, partitions: 0 });
    expect([await count('messages', 'C0FE'), await count('raw_messages', 'C0FE')]).toEqual([4, 4]);
    expect([await count('messages', '0ACE'), await count('raw_messages', '0ACE')]).toEqual([4, 1]);
    expect([await count('messages', 'BEEF'), await count('raw_messages', 'BEEF')]).toEqual([2, 2]);
    expect(await pruner.runOnce()).toEqual({ messages: 0, raw: 0, alerts: 0, partitions: 0 });

    // App A withdraws its choice: C0FE now follows B (10 days), then B is deleted: the default.
    expect((await post(`apps/retention.json?idApp=${appA}&messages_days=`)).json()).toMatchObject({ messages_days: null, raw_days: null });
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 3, alerts: 0, partitions: 0 });
    expect((await app.server.inject({ method: 'DELETE', url: `/iot/developers/apps.json?id=${appB}`, headers: { authorization: auth } })).statusCode).toBe(200);
    expect((await get('modules/retention.json?sn=0ACE')).json()).toMatchObject({ effective: { messages_days: 60, raw_days: 0 }, source: { raw_days: { from: 'default' } } });
    expect(await pruner.runOnce()).toEqual({ messages: 0, raw: 0, alerts: 0, partitions: 0 });
    expect(await counters()).toEqual(before);
    await pruner.stop();
  });
});

describe.each(dialects)('GET/POST /iot/developers/apps/retention.json (%s)', (dialect) => {
  let app: TestApp;
  let owner: string;
  let stranger: string;
  let appId: number;
  const call = (method: 'GET' | 'POST', auth: string | undefined, query: string) =>
    app.server.inject({ method, url: `/iot/developers/apps/retention.json?${query}`, headers: auth ? { authorization: auth } : {} });
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_RETENTION_MESSAGES_DAYS: '90' });
    owner = (await createDeveloper(app)).auth;
    stranger = (await createDeveloper(app, 'other@example.com')).auth;
    const account = await app.context.accounts.byEmail('dev@example.com');
    appId = (await app.context.apps.save(account.id, { name: 'fleet' })).id;
  });
  afterAll(() => app.close());

  it("answers 401 without credentials and 404 for an app that is not the caller's", async () => {
    expect((await call('GET', undefined, `idApp=${appId}`)).statusCode).toBe(401);
    expect((await call('POST', undefined, `idApp=${appId}&messages_days=1`)).statusCode).toBe(401);
    const notMine = await call('GET', stranger, `idApp=${appId}`);
    expect(notMine.statusCode).toBe(404);
    expect(notMine.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await call('POST', stranger, `idApp=${appId}&messages_days=1`)).statusCode).toBe(404);
    expect((await call('GET', owner, 'idApp=999999')).statusCode).toBe(404);
    expect((await call('GET', owner, `idApp=${appId}`)).json()).toMatchObject({ messages_days: null });
  });

  it('refuses a missing app, days out of range or not a number with a 400 naming the parameter', async () => {
    const cases: [string, RegExp][] = [
      ['messages_days=1', /^idApp is required/],
      ['idApp=fleet', /^idApp must be an integer/],
      [`idApp=${appId}&messages_days=-1`, /^messages_days must be from 0/],
      [`idApp=${appId}&raw_days=36501`, /^raw_days must be from 0/],
      [`idApp=${appId}&raw_days=week`, /^raw_days must be an integer/],
    ];
    for (const [query, message] of cases) {
      const answer = await call('POST', owner, query);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json().message, query).toMatch(message);
    }
    expect((await call('GET', owner, `idApp=${appId}`)).json()).toMatchObject({ messages_days: null, raw_days: null });
  });

  it('sets and clears the choice from the query or a JSON body, and records it in the audit log', async () => {
    const set = await app.server.inject({
      method: 'POST', url: '/iot/developers/apps/retention.json', headers: { authorization: owner }, payload: { idApp: appId, messages_days: 0, raw_days: 14 },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({ id: appId, messages_days: 0, raw_days: 14, defaults: { messages_days: 90, raw_days: 0 } });
    expect((await call('GET', owner, `idApp=${appId}`)).json()).toMatchObject({ messages_days: 0, raw_days: 14 });
    await expect
      .poll(async () => ((await app.server.inject({ method: 'GET', url: '/iot/developers/audit.json', headers: { authorization: owner } })).json() as { action: string }[]).map((e) => e.action))
      .toContain('app.retention');
    expect((await call('POST', owner, `idApp=${appId}&messages_days=&raw_days=`)).json()).toMatchObject({ messages_days: null, raw_days: null });
  });
});
