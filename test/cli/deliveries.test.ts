import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { enqueueDeliveries } from '../../src/delivery/outbox.js';
import { BIN, snsr, startSnsr } from '../helpers/cli.js';
import { dialects, freshDatabase } from '../helpers/database.js';
import { startReceiver } from '../delivery/receiver.js';
import type { Receiver } from '../delivery/receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-deliveries-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'cli-secret', SNSR_CALLBACK_ALLOW_PRIVATE: 'true', SNSR_DELIVERY_BACKOFF_MS: '50' };
let receiver: Receiver;
let appId: number;
let ids: number[];

/** Queues `count` deliveries of new messages to the app, directly in the database. */
async function queue(count: number, on: Record<string, string> = env): Promise<number[]> {
  const context = await createContext(loadConfig(on), { log: pino({ level: 'silent' }) });
  try {
    const device = (await context.repositories.devices.bySerial('C0FE'))!;
    for (let i = 0; i < count; i++) {
      const message = await context.repositories.messages.insert({
        module_serial: 'C0FE', device_id: device.id, raw_id: null, when_ms: Date.now() + i, time_s: Math.floor(Date.now() / 1000), type: 'event:templow', station: '1A2B', lvl: -120,
        frame: '00000046', frame_type: 'srv_frm_event', code: 'event_temp_low', entry_id: 0, stamp: 0, cpt: 0, retry: 0, custom: '{}', contrib: '{}', ctxt: '{}',
      });
      await enqueueDeliveries(context.storage.db, message);
    }
    return (await context.storage.db.selectFrom('deliveries').select('id').orderBy('id').execute()).map((row) => row.id);
  } finally {
    await context.close();
  }
}

/** An account owning module C0FE, attached to an app calling the receiver; returns the app id. */
async function setUp(on: Record<string, string>): Promise<number> {
  const context = await createContext(loadConfig(on), { log: pino({ level: 'silent' }) });
  try {
    await context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
    const { account } = await context.accounts.create('ops@example.com', 'Secret123');
    await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    const id = (await context.apps.save(account.id, { name: 'hooked', callbackurl: receiver.url })).id;
    await context.apps.attach(account.id, id, ['C0FE']);
    return id;
  } finally {
    await context.close();
  }
}

async function fail(on: Record<string, string>, id: number): Promise<void> {
  const context = await createContext(loadConfig(on), { log: pino({ level: 'silent' }) });
  await context.storage.db.updateTable('deliveries').set({ status: 'failed', attempts: 8, last_status_code: 502, last_error: 'HTTP 502: Bad Gateway' }).where('id', '=', id).execute();
  await context.close();
}

beforeAll(async () => {
  receiver = await startReceiver();
  appId = await setUp(env);
  ids = await queue(3);
  await fail(env, ids[0]!);
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `snsr worker` until `until` holds, then sends SIGTERM; resolves with the exit code and output. */
async function runWorker(on: Record<string, string>, until: () => Promise<boolean>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, 'worker'], { env: { ...process.env, LOG_LEVEL: 'info', ...on } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 15_000;
  while (!(await until())) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`condition not met; worker output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  return { code: await exited, output };
}

describe('snsr deliveries and snsr worker (the real binary)', () => {
  it('has --help on the new commands', async () => {
    for (const command of [['worker'], ['deliveries'], ['deliveries', 'list'], ['deliveries', 'retry']]) {
      const result = await snsr([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: snsr/);
    }
    expect((await snsr(['serve', '--help'])).stdout).toMatch(/--no-worker/);
  });

  it('lists an app\'s deliveries newest first, filtered by status, as a table or JSON', async () => {
    const table = await snsr(['deliveries', 'list', '--app', String(appId)], env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+ATTEMPTS\s+CODE\s+MESSAGE\s+CREATED\s+NEXT ATTEMPT\s+LAST ERROR$/);
    expect(lines.slice(1).map((line) => Number(line.split(/\s+/)[0]))).toEqual([...ids].reverse());
    expect(lines.at(-1)).toMatch(new RegExp(`^${ids[0]}\\s+failed\\s+8\\s+502\\s+\\d+\\s+\\S+Z\\s+-\\s+HTTP 502: Bad Gateway$`));

    const failed = await snsr(['deliveries', 'list', '--app', String(appId), '--status', 'failed', '--json'], env);
    const parsed = JSON.parse(failed.stdout);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ id: ids[0], status: 'failed', attempts: 8, last_status_code: 502, next_attempt: null });
    const paged = JSON.parse((await snsr(['deliveries', 'list', '--app', String(appId), '--limit', '1', '--before', String(ids[2]), '--json'], env)).stdout);
    expect(paged.map((d: { id: number }) => d.id)).toEqual([ids[1]]);
  });

  it('reports an unknown app with exit 1, a bad status and a bad id as usage errors with exit 2', async () => {
    const unknown = await snsr(['deliveries', 'list', '--app', '9999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/app 9999 not found/);
    const status = await snsr(['deliveries', 'list', '--app', String(appId), '--status', 'lost'], env);
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/--status.*pending, delivered, failed/s);
    const id = await snsr(['deliveries', 'retry', 'x1'], env);
    expect(id.code).toBe(2);
    expect(id.stderr).toMatch(/positive integer/);
  });

  it('re-queues a failed delivery once, and serve then sends it; --no-worker leaves deliveries queued', async () => {
    const retried = await snsr(['deliveries', 'retry', String(ids[0])], env);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`delivery ${ids[0]} \\(app ${appId}\\) queued again`));
    const again = await snsr(['deliveries', 'retry', String(ids[0])], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/is pending; only failed deliveries can be retried/);
    expect((await snsr(['deliveries', 'retry', '9999'], env)).stderr).toMatch(/delivery 9999 not found/);

    const quiet = await startSnsr(['serve', '--no-worker'], { ...env, PORT: '0', HOST: '127.0.0.1' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(0);
    let exited = new Promise<number | null>((resolve) => quiet.child.once('exit', resolve));
    quiet.child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const { child } = await startSnsr(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1' });
    await receiver.waitFor(3);
    exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const list = JSON.parse((await snsr(['deliveries', 'list', '--app', String(appId), '--json'], env)).stdout);
    expect(list.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(new Set(receiver.received.map((r) => r.headers['x-snsr-delivery'])).size).toBe(3);
  });

  it('snsr worker refuses a SQLite database, which belongs to one process', async () => {
    const refused = await snsr(['worker'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/snsr worker needs PostgreSQL/);
  });

  it.runIf(dialects.includes('postgres'))('snsr worker sends what is pending on PostgreSQL and stops cleanly on SIGTERM', async () => {
    const database = await freshDatabase('postgres');
    const on = { ...env, SNSR_DATABASE_URL: database.url };
    try {
      await setUp(on);
      await queue(2, on);
      const before = receiver.received.length;
      const { code, output } = await runWorker(on, async () => receiver.received.length >= before + 2);
      expect(code).toBe(0);
      expect(output).toMatch(/delivery worker started/);
      expect(output).toMatch(/delivery worker stopped/);
      const context = await createContext(loadConfig(on), { log: pino({ level: 'silent' }) });
      const statuses = await context.storage.db.selectFrom('deliveries').select('status').execute();
      await context.close();
      expect(statuses.map((d) => d.status)).toEqual(['delivered', 'delivered']);
    } finally {
      await database.drop();
    }
  });
});
