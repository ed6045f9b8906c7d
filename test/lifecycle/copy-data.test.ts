import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { Database } from '../../src/storage/schema.js';
import { CopyError, copyData } from '../../src/lifecycle/copy-data.js';
import type { CopyProgress } from '../../src/lifecycle/copy-data.js';
import { describeTables, foreignKeyOrder } from '../../src/lifecycle/copy-table-order.js';
import { dialects } from '../helpers/database.js';
import { scratchDatabase } from '../helpers/scratch-database.js';
import type { ScratchDatabase } from '../helpers/scratch-database.js';
import { appOn, dumpTables, seedEverything, uplink } from '../helpers/copy-seed.js';
import type { TestApp } from '../helpers/app.js';
import { frames } from '../helpers/uplinks.js';

/**
 * Every table of src/storage/schema.ts. The copy reads its table list from the live database's
 * catalog; this list only checks that the catalog and the Kysely types agree: a table added to
 * schema.ts fails the typecheck here until it is listed, and one added by a migration alone fails
 * the test below, so a new table cannot be silently left out of a move.
 */
const SCHEMA_TABLES = {
  settings: true, accounts: true, modules: true, devices: true, apps: true, app_modules: true, raw_messages: true, rinfos: true,
  messages: true, deliveries: true, sessions: true, api_keys: true, audit_log: true, signups: true, password_resets: true, alerts: true,
  module_retention: true, app_retention: true, alert_settings: true, leases: true, rate_limits: true, delivery_slots: true,
} as const satisfies Record<keyof Database, true>;
const TABLES = Object.keys(SCHEMA_TABLES).sort();

const migrated = async (url: string) => {
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: url, SNSR_SECRET: 's' }), { log: pino({ level: 'silent' }) });
  return context;
};

describe.each(dialects)('copy-data table order (%s)', (dialect) => {
  it("lists exactly schema.ts's tables from the live catalog, parents before children", async () => {
    const database = await scratchDatabase(dialect);
    const context = await migrated(database.url);
    try {
      const tables = await describeTables(context.storage.db, dialect);
      expect(tables.map((t) => t.name).sort()).toEqual(TABLES);
      const order = foreignKeyOrder(tables);
      const before = (a: string, b: string) => expect(order.indexOf(a), `${a} before ${b}`).toBeLessThan(order.indexOf(b));
      before('accounts', 'apps');
      before('modules', 'devices');
      before('apps', 'app_modules');
      before('devices', 'messages');
      before('raw_messages', 'messages');
      const messages = tables.find((t) => t.name === 'messages')!;
      expect(messages.generated).toBe('id');
      expect(messages.primaryKey).toEqual(dialect === 'postgres' ? ['id', 'when_ms'] : ['id']);
    } finally {
      await context.close();
      await database.drop();
    }
  });
});

describe.runIf(dialects.includes('postgres'))('copy-data SQLite → PostgreSQL → SQLite', () => {
  const scratch: ScratchDatabase[] = [];
  let original: string;
  let postgres: string;
  let back: string;
  let before: Record<string, unknown[]>;
  const fresh = async (dialect: 'sqlite' | 'postgres') => {
    const database = await scratchDatabase(dialect);
    scratch.push(database);
    return database.url;
  };
  const dumpOf = async (url: string) => {
    const app = await appOn(url);
    try {
      return await dumpTables(app.context.storage.db, TABLES);
    } finally {
      await app.close();
    }
  };

  beforeAll(async () => {
    [original, postgres, back] = [await fresh('sqlite'), await fresh('postgres'), await fresh('sqlite')];
    const app = await appOn(original);
    await seedEverything(app);
    await app.close();
    before = await dumpOf(original);
  });
  afterAll(async () => {
    for (const database of scratch) await database.drop();
  });

  it('copies every table row for row, both ways, in batches smaller than the tables', async () => {
    for (const table of TABLES) expect(before[table]!.length, `${table} is seeded`).toBeGreaterThan(0);
    const progress: CopyProgress[] = [];
    const there = await copyData({ from: original, to: postgres, batchSize: 2, onProgress: (p) => progress.push(p) });
    expect(there.tables.map((t) => t.table).sort()).toEqual(TABLES);
    expect(there.secretCopied).toBe(true);
    expect(there.partitions).toContain('raw_messages_y2020m09');
    expect(progress.filter((p) => p.table === 'messages' && !p.finished).length).toBeGreaterThan(2);
    expect(await dumpOf(postgres)).toEqual(before);

    const again = await copyData({ from: postgres, to: back, batchSize: 3 });
    expect(again.tables.find((t) => t.table === 'messages')!.rows).toBe(before.messages!.length);
    expect(await dumpOf(back)).toEqual(before);
  });

  it('refuses a target holding snsr rows and changes nothing; --replace empties it in the same transaction', async () => {
    const target = await fresh('postgres');
    const app = await appOn(target);
    await app.context.accounts.create('someone@example.com', 'Secret123');
    await app.close();
    const held = await dumpOf(target);
    await expect(copyData({ from: original, to: target })).rejects.toThrow(CopyError);
    await expect(copyData({ from: original, to: target })).rejects.toThrow(/not empty \(rows in accounts, settings\); nothing was changed.*--replace/);
    expect(await dumpOf(target)).toEqual(held);
    const replaced = await copyData({ from: original, to: target, replace: true });
    expect(replaced.replaced).toEqual(['accounts', 'settings']);
    expect(await dumpOf(target)).toEqual(before);
  });

  it('continues ids past the source: a new uplink, account and audit row on the target get fresh ids', async () => {
    const app: TestApp = await appOn(postgres);
    try {
      const db = app.context.storage.db;
      // The source's newest audit row was deleted before the copy: its id is not handed out again.
      const audit = await db.insertInto('audit_log').values({ account_id: 1, at: Date.now(), action: 'test' }).returning('id').executeTakeFirstOrThrow();
      const sourceLast = Math.max(...before.audit_log!.map((row) => JSON.parse(row as string).id as number));
      expect(audit.id).toBe(sourceLast + 2);
      const maxMessage = (await db.selectFrom('messages').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow()).id as number;
      await uplink(app, 'C0FE', 1_763_100_000, frames.keepAlive(5), 99);
      const newest = await db.selectFrom('messages').select(['id', 'module_serial']).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(newest).toEqual({ id: maxMessage + 1, module_serial: 'C0FE' });
      const { account } = await app.context.accounts.create('dave@example.com', 'Secret123');
      expect(account.id).toBe(3);
    } finally {
      await app.close();
    }
  });
});
