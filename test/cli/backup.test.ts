import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import SqliteDatabase from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { snsr, startSnsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-backup-'));
const database = join(dir, 'snsr.sqlite');
const env = { SNSR_DATABASE_URL: database, SNSR_SECRET: 'backup-secret', SNSR_NETWORK_TOKEN: 'network-token', HOST: '127.0.0.1', PORT: '0' };
const children: ChildProcess[] = [];

async function serve(on: Record<string, string>): Promise<string> {
  const { child, output } = await startSnsr(['serve', '--no-worker'], on);
  children.push(child);
  return /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!;
}

const keepAlive = (cpt: number) => Buffer.from([cpt & 0x0f, 3, 0x00, 0x18, 0x91, 0x67]).toString('hex');
const count = (file: string, table: string) => {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  await context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
  await context.close();
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('snsr backup (the real binary)', { timeout: 90_000 }, () => {
  it('copies the database while uplinks are ingested; the copy is consistent and serves', async () => {
    const url = await serve(env);
    let sent = 0;
    let ingesting = true;
    const ingest = (async () => {
      while (ingesting) {
        sent++;
        const response = await fetch(`${url}/network/sigfox/uplink`, {
          method: 'POST',
          headers: { authorization: 'Bearer network-token', 'content-type': 'application/json' },
          body: JSON.stringify({ device: 'C0FE', time: 1_700_000_000 + sent, data: keepAlive(sent), seqNumber: sent, station: '1A2B', rssi: -120, snr: 10 }),
        });
        expect(response.status).toBe(200);
      }
    })();
    while (sent < 50) await new Promise((resolve) => setTimeout(resolve, 20));
    const file = join(dir, 'copy.sqlite');
    const result = await snsr(['backup', file], env);
    const sentAtBackup = sent;
    ingesting = false;
    await ingest;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/backed up .* to .*copy\.sqlite: \d+ pages, [\d.]+ MB in [\d.]+ s; integrity ok/);
    expect(result.stdout).toMatch(/To restore it:[\s\S]*rm -f .*-wal .*-shm/);

    // Each uplink writes its raw message and message in one transaction: the copy has whole uplinks.
    const messages = count(file, 'messages');
    expect(messages).toBeGreaterThanOrEqual(40);
    expect(messages).toBeLessThanOrEqual(sentAtBackup);
    expect(count(file, 'raw_messages')).toBe(messages);
    expect(count(database, 'messages')).toBe(sent);

    const copyUrl = await serve({ ...env, SNSR_DATABASE_URL: file });
    expect((await fetch(`${copyUrl}/healthz`)).status).toBe(200);
    const token = await (await fetch(`${copyUrl}/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D`)).text();
    const history = await fetch(`${copyUrl}/iot/devices/msgs/history.json?amount=1000`, { headers: { 'x-snsr-device-key': token } });
    expect(history.status).toBe(200);
    expect(((await history.json()) as unknown[]).length).toBe(messages);
  });

  it('refuses to overwrite a file unless --force, and never the database itself', async () => {
    const file = join(dir, 'exists.sqlite');
    writeFileSync(file, 'not a database');
    const refused = await snsr(['backup', file], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists\.sqlite exists: name a new file, or pass --force/);
    expect((await snsr(['backup', '--force', file], env)).code).toBe(0);
    expect(count(file, 'modules')).toBe(1);
    const itself = await snsr(['backup', join(dir, '.', 'snsr.sqlite')], env);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toMatch(/the backup file is the database itself/);
  });

  it('says what is wrong with a missing database or folder', async () => {
    const missing = await snsr(['backup', join(dir, 'x.sqlite')], { ...env, SNSR_DATABASE_URL: join(dir, 'none.sqlite') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no database at .*none\.sqlite: check SNSR_DATABASE_URL/);
    const folder = await snsr(['backup', join(dir, 'no', 'such', 'x.sqlite')], env);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toMatch(/folder .* does not exist/);
    expect(existsSync(join(dir, 'x.sqlite'))).toBe(false);
  });

  it('explains pg_dump on PostgreSQL, without printing the password', async () => {
    const result = await snsr(['backup', 'dump.pgc'], { SNSR_DATABASE_URL: 'postgres://snsr:hunter2@db.example:5432/snsr' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/pg_dump --format=custom --file dump\.pgc 'postgres:\/\/snsr:\*\*\*@db\.example:5432\/snsr'/);
    expect(result.stderr).toMatch(/pg_restore/);
    expect(result.stderr).not.toMatch(/hunter2/);
  });
});
