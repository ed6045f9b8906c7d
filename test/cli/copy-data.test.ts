import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { snsr, startSnsr } from '../helpers/cli.js';
import { dialects } from '../helpers/database.js';
import { scratchDatabase } from '../helpers/scratch-database.js';
import type { ScratchDatabase } from '../helpers/scratch-database.js';
import { appOn, call, dumpTables, seedEverything, uplink } from '../helpers/copy-seed.js';
import type { Credentials } from '../helpers/copy-seed.js';
import { sameOrigin } from '../helpers/session.js';
import { frames } from '../helpers/uplinks.js';

const TABLES = ['accounts', 'alert_settings', 'alerts', 'api_keys', 'app_modules', 'app_retention', 'apps', 'audit_log', 'deliveries', 'delivery_slots', 'devices', 'leases', 'messages', 'module_retention', 'modules', 'password_resets', 'rate_limits', 'raw_messages', 'rinfos', 'sessions', 'settings', 'signups'];

const dumpOf = async (url: string) => {
  const app = await appOn(url);
  try {
    return await dumpTables(app.context.storage.db, TABLES);
  } finally {
    await app.close();
  }
};

describe.runIf(dialects.includes('postgres'))('snsr copy-data (the real binary)', () => {
  const scratch: ScratchDatabase[] = [];
  let original: string;
  let postgres: string;
  let credentials: Credentials;
  let before: Record<string, unknown[]>;
  const fresh = async (dialect: 'sqlite' | 'postgres') => {
    const database = await scratchDatabase(dialect);
    scratch.push(database);
    return database.url;
  };
  // No SNSR_SECRET: the device-token secret is the one snsr generated into the source's settings.
  const copy = (args: string[], from = original) => snsr(['copy-data', ...args], { SNSR_DATABASE_URL: from, SNSR_SECRET: '' });

  beforeAll(async () => {
    original = await fresh('sqlite');
    postgres = await fresh('postgres');
    const app = await appOn(original);
    credentials = await seedEverything(app);
    await app.close();
    before = await dumpOf(original);
  });
  afterAll(async () => {
    for (const database of scratch) await database.drop();
  });

  it('moves SQLite to PostgreSQL: a summary per table, the password never printed', async () => {
    const withPassword = postgres.replace('postgres@', 'postgres:hunter2@');
    const result = await copy(['--to', withPassword, '--batch-size', '2']);
    expect(result.stderr).toMatch(/^messages: \d+ of \d+ rows, done$/m);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^copied .*snsr\.sqlite to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:5432\/snsr_test_\w+ in [\d.]+ s$/m);
    expect(result.stdout).toMatch(new RegExp(`^  messages +${before.messages!.length} rows +[\\d.]+ s$`, 'm'));
    expect(result.stdout).toMatch(/device-token secret was copied/);
    expect(result.stdout + result.stderr).not.toMatch(/hunter2/);
    expect(await dumpOf(postgres)).toEqual(before);
  });

  it('the device token, API key and dashboard session made before the move work on the target; a new uplink gets a fresh id', async () => {
    const app = await appOn(postgres);
    try {
      const history = await call(app, 'GET', '/iot/devices/msgs/history.json?amount=100', { 'x-snsr-device-key': credentials.deviceToken });
      expect(history.status, history.body).toBe(200);
      expect(history.json().length).toBeGreaterThan(0);
      const apps = await call(app, 'GET', '/iot/developers/apps.json', { authorization: credentials.apiKeyToken });
      expect(apps.status, apps.body).toBe(200);
      expect(apps.json().map((a: { name: string }) => a.name)).toEqual(['farm']);
      const session = await call(app, 'GET', '/iot/developers/apps.json', sameOrigin(credentials.cookie));
      expect(session.status, session.body).toBe(200);
      expect((await call(app, 'GET', '/iot/developers/apps.json', { authorization: credentials.auth })).status).toBe(200);

      const db = app.context.storage.db;
      const highest = (await db.selectFrom('raw_messages').select((eb) => eb.fn.max('id').as('id')).executeTakeFirstOrThrow()).id as number;
      await uplink(app, 'C0FE', 1_763_200_000, frames.keepAlive(6), 42);
      const raw = await db.selectFrom('raw_messages').select(['id', 'seq_number']).orderBy('id', 'desc').executeTakeFirstOrThrow();
      expect(raw).toEqual({ id: highest + 1, seq_number: 42 });
      const after = await call(app, 'GET', '/iot/devices/msgs/history.json?amount=100', { 'x-snsr-device-key': credentials.deviceToken });
      expect(after.json().length).toBe(history.json().length + 1);
    } finally {
      await app.close();
    }
  });

  it('refuses a target that is not empty: exit 1, and the target is as it was', async () => {
    const held = await dumpOf(postgres);
    const result = await copy(['--to', postgres]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^snsr: the target database is not empty \(rows in .*accounts.*\); nothing was changed\. .*--replace/m);
    expect(result.stdout).toBe('');
    expect(await dumpOf(postgres)).toEqual(held);
  });

  it('says what is wrong with an unreachable, unsupported or same target, and with the command line', async () => {
    const unreachable = await copy(['--to', 'postgres://postgres@127.0.0.1:1/nowhere']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^snsr: target database: cannot reach the database at 127\.0\.0\.1:1: connection refused .*check --to; nothing was copied$/m);
    const unsupported = await copy(['--to', 'mysql://db/snsr']);
    expect(unsupported.code).toBe(1);
    expect(unsupported.stderr).toMatch(/--to "mysql:\/\/db\/snsr" is not supported/);
    const itself = await copy(['--to', original.replace(/^sqlite:/, '')]);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toMatch(/the target is the source database itself/);
    const missing = await copy(['--to', 'sqlite:/tmp/snsr-copy-never.sqlite'], 'sqlite:/tmp/snsr-copy-no-such-dir/none.sqlite');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no database at .*none\.sqlite: check SNSR_DATABASE_URL/);
    expect(existsSync('/tmp/snsr-copy-never.sqlite')).toBe(false);
    expect((await copy([])).code).toBe(2);
    expect((await copy(['--to', postgres, '--batch-size', 'lots'])).code).toBe(2);
  });

  it('moves back from PostgreSQL to a new SQLite file, row for row', async () => {
    const back = await fresh('sqlite');
    const moved = await dumpOf(postgres);
    const result = await copy(['--to', back, '--batch-size', '5'], postgres);
    expect(result.code, result.stderr).toBe(0);
    expect(await dumpOf(back)).toEqual(moved);
  });
});

describe.runIf(dialects.includes('postgres'))('snsr copy-data from a SQLite database that is serving', () => {
  it('copies one snapshot: every uplink whole (raw message, station report, message), none half', async () => {
    const source = await scratchDatabase('sqlite');
    const target = await scratchDatabase('postgres');
    const env = { SNSR_DATABASE_URL: source.url, SNSR_NETWORK_TOKEN: 'network-token', HOST: '127.0.0.1', PORT: '0' };
    const seeding = await appOn(source.url);
    await seeding.context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
    await seeding.close();
    const { child, output } = await startSnsr(['serve', '--no-worker'], env);
    try {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!;
      let sent = 0;
      let ingesting = true;
      const ingest = (async () => {
        while (ingesting) {
          sent++;
          const response = await fetch(`${url}/network/sigfox/uplink`, {
            method: 'POST',
            headers: { authorization: 'Bearer network-token', 'content-type': 'application/json' },
            body: JSON.stringify({ device: 'C0FE', time: 1_763_000_000 + sent, data: frames.keepAlive(sent), seqNumber: sent % 4096, station: '1A2B', rssi: -120, snr: 10 }),
          });
          expect(response.status).toBe(200);
        }
      })();
      while (sent < 30) await new Promise((resolve) => setTimeout(resolve, 20));
      const result = await snsr(['copy-data', '--to', target.url, '--batch-size', '1'], { SNSR_DATABASE_URL: source.url });
      ingesting = false;
      await ingest;
      expect(result.code, result.stderr).toBe(0);
      const copied = await appOn(target.url);
      try {
        const db = copied.context.storage.db;
        const count = async (table: 'raw_messages' | 'messages' | 'rinfos') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const messages = await count('messages');
        expect(messages).toBeGreaterThanOrEqual(29);
        expect(await count('raw_messages')).toBe(messages);
        expect(await count('rinfos')).toBe(messages);
        expect(messages).toBeLessThan(sent);
      } finally {
        await copied.close();
      }
    } finally {
      child.kill('SIGKILL');
      await target.drop();
      await source.drop();
    }
  });
});
