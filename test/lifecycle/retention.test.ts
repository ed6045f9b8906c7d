import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import { startRetentionPruner } from '../../src/lifecycle/retention-pruner.js';
import { RetentionRepository } from '../../src/storage/retention-repository.js';

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });

describe.each(dialects)('retention pruning (%s)', (dialect) => {
  let app: TestApp;
  const now = Date.now();
  const counters = async (serial: string) =>
    app.context.storage.db.selectFrom('devices').select(['msgs', 'losts', 'alerts']).where('serial', '=', serial).executeTakeFirstOrThrow();
  const count = async (table: 'messages' | 'raw_messages', serial: string) =>
    Number((await app.context.storage.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('module_serial', '=', serial).executeTakeFirstOrThrow()).n);
  /** Moves a module's oldest `n` messages and raw messages `days` into the past. */
  const age = async (serial: string, n: number, days: number) => {
    const db = app.context.storage.db;
    const messages = await db.selectFrom('messages').select('id').where('module_serial', '=', serial).orderBy('id').limit(n).execute();
    await db.updateTable('messages').set({ when_ms: now - days * DAY }).where('id', 'in', messages.map((m) => m.id)).execute();
    const raws = await db.selectFrom('raw_messages').select('id').where('module_serial', '=', serial).orderBy('id').limit(n).execute();
    await db.updateTable('raw_messages').set({ received_at: now - days * DAY }).where('id', 'in', raws.map((r) => r.id)).execute();
  };

  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const { email } = await createDeveloper(app);
    const account = await app.context.accounts.byEmail(email);
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    for (const serial of ['C0FE', '0ACE']) for (let i = 0; i < 4; i++) await uplink(app, serial, frames.keepAlive(i), 1_700_000_000 + i * 60);
    await age('C0FE', 3, 40);
    await age('0ACE', 3, 40);
  });
  afterAll(() => app.close());

  it('keeps everything while every retention is 0 (forever)', async () => {
    const pruner = startRetentionPruner(new RetentionRepository(app.context.storage.db), { messagesDays: 0, rawDays: 0, alertsDays: 0 }, silent);
    expect(await pruner.runOnce()).toEqual({ messages: 0, raw: 0, alerts: 0, partitions: 0 });
    expect(await count('messages', 'C0FE')).toBe(4);
  });

  it("deletes what is past the default in small batches, keeps a module's own longer choice, and leaves device counters true", async () => {
    const repository = new RetentionRepository(app.context.storage.db);
    await repository.setModule('0ACE', { messagesDays: 365, rawDays: null });
    expect(await repository.ofModule('0ACE')).toEqual({ messagesDays: 365, rawDays: null });
    const before = { c0fe: await counters('C0FE'), ace: await counters('0ACE') };
    expect(before.c0fe.msgs).toBe(4);

    const pruner = startRetentionPruner(repository, { messagesDays: 30, rawDays: 30, alertsDays: 30 }, silent, { batch: 2 });
    // C0FE: 3 old messages and 3 old raw messages; 0ACE: its raw ones only (messages kept a year).
    expect(await pruner.runOnce()).toEqual({ messages: 3, raw: 6, alerts: 0, partitions: 0 });
    expect(await count('messages', 'C0FE')).toBe(1);
    expect(await count('raw_messages', 'C0FE')).toBe(1);
    expect(await count('messages', '0ACE')).toBe(4);
    expect(await count('raw_messages', '0ACE')).toBe(1);
    expect({ c0fe: await counters('C0FE'), ace: await counters('0ACE') }).toEqual(before);
    expect(await pruner.runOnce()).toEqual({ messages: 0, raw: 0, alerts: 0, partitions: 0 });
    await pruner.stop();
  });
});

describe.each(dialects)('GET/POST /iot/developers/modules/retention.json (%s)', (dialect) => {
  let app: TestApp;
  let owner: string;
  let stranger: string;
  const call = (method: 'GET' | 'POST', auth: string | undefined, query: string) =>
    app.server.inject({ method, url: `/iot/developers/modules/retention.json?${query}`, headers: auth ? { authorization: auth } : {} });
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_RETENTION_MESSAGES_DAYS: '90' });
    await importCatalog(app);
    owner = (await createDeveloper(app)).auth;
    stranger = (await createDeveloper(app, 'other@example.com')).auth;
    const account = await app.context.accounts.byEmail('dev@example.com');
    await app.context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
  });
  afterAll(() => app.close());

  it('answers 401 without credentials and 404 for a module the caller does not own', async () => {
    expect((await call('GET', undefined, 'sn=C0FE')).statusCode).toBe(401);
    expect((await call('GET', stranger, 'sn=C0FE')).statusCode).toBe(404);
    expect((await call('POST', stranger, 'sn=C0FE&messages_days=1')).statusCode).toBe(404);
    expect((await call('GET', owner, 'sn=0ACE')).statusCode).toBe(404);
  });

  it("shows the operator's default until the owner chooses, then the choice; empty goes back", async () => {
    expect((await call('GET', owner, 'sn=c0fe')).json()).toEqual({ serial: 'C0FE', messages_days: null, raw_days: null, effective: { messages_days: 90, raw_days: 0 },
      source: { messages_days: { from: 'default' }, raw_days: { from: 'default' } },
    });
    const set = await call('POST', owner, 'sn=C0FE&messages_days=7&raw_days=0');
    expect(set.statusCode).toBe(200);
    expect(set.json()).toEqual({
      serial: 'C0FE', messages_days: 7, raw_days: 0, effective: { messages_days: 7, raw_days: 0 },
      source: { messages_days: { from: 'module' }, raw_days: { from: 'module' } },
    });
    expect((await call('GET', owner, 'sn=C0FE')).json()).toMatchObject({ messages_days: 7, raw_days: 0 });
    expect((await call('POST', owner, 'sn=C0FE&messages_days=')).json()).toMatchObject({ messages_days: null, raw_days: null, effective: { messages_days: 90 } });
  });

  it('refuses days out of range or not a number with a 400 naming the parameter', async () => {
    const negative = await call('POST', owner, 'sn=C0FE&messages_days=-1');
    expect(negative.statusCode).toBe(400);
    expect(negative.json().message).toMatch(/messages_days must be from 0/);
    const text = await call('POST', owner, 'sn=C0FE&raw_days=week');
    expect(text.statusCode).toBe(400);
    expect(text.json().message).toMatch(/raw_days must be an integer/);
    expect((await call('POST', owner, 'sn=C0FE&raw_days=40000')).statusCode).toBe(400);
  });
});
