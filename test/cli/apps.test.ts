import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { enqueueDeliveries } from '../../src/delivery/outbox.js';
import { snsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-apps-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'cli-secret', SNSR_CALLBACK_ALLOW_PRIVATE: 'true' };
let appId: number;

async function withContext<T>(body: (context: Context) => Promise<T>): Promise<T> {
  const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}

const statuses = () => withContext(async (context) => (await context.storage.db.selectFrom('deliveries').select('status').orderBy('id').execute()).map((row) => row.status));

/** An app with four deliveries as a worker leaves them: two delivered (40 and 80 ms), two failed. */
beforeAll(async () => {
  appId = await withContext(async (context) => {
    await context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
    const { account } = await context.accounts.create('ops@example.com', 'Secret123');
    await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    const id = (await context.apps.save(account.id, { name: 'hooked', callbackurl: 'http://127.0.0.1:9/hook' })).id;
    await context.apps.attach(account.id, id, ['C0FE']);
    const device = (await context.repositories.devices.bySerial('C0FE'))!;
    const now = Date.now();
    for (let i = 0; i < 4; i++) {
      const message = await context.repositories.messages.insert({
        module_serial: 'C0FE', device_id: device.id, raw_id: null, when_ms: now + i, time_s: Math.floor(now / 1000), type: 'event:templow', station: '1A2B', lvl: -120,
        frame: '00000046', frame_type: 'srv_frm_event', code: 'event_temp_low', entry_id: 0, stamp: 0, cpt: 0, retry: 0, custom: '{}', contrib: '{}', ctxt: '{}',
      });
      await enqueueDeliveries(context.storage.db, message);
    }
    const rows = await context.storage.db.selectFrom('deliveries').select('id').orderBy('id').execute();
    const set = (row: number, fields: object) => context.storage.db.updateTable('deliveries').set({ updated_at: now, ...fields }).where('id', '=', rows[row]!.id).execute();
    await set(0, { status: 'delivered', attempts: 1, last_status_code: 200, last_latency_ms: 40, delivered_at: now });
    await set(1, { status: 'delivered', attempts: 1, last_status_code: 200, last_latency_ms: 80, delivered_at: now });
    await set(2, { status: 'failed', attempts: 8, last_status_code: 502, last_error: 'HTTP 502: Bad Gateway', last_latency_ms: 120 });
    await set(3, { status: 'failed', attempts: 8, last_status_code: null, last_error: 'timeout after 5000 ms', last_latency_ms: 5000, updated_at: now + 1 });
    return id;
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr apps health and snsr deliveries retry --all-failed (the real binary)', () => {
  it('prints an app\'s health for people, and as the API answers it with --json', async () => {
    const text = await snsr(['apps', 'health', String(appId)], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^delivered\s+2$/m);
    expect(text.stdout).toMatch(/^failed\s+2$/m);
    expect(text.stdout).toMatch(/^success rate\s+50\.0 %$/m);
    expect(text.stdout).toMatch(/^latency\s+p50 80 ms, p95 5000 ms \(4 requests\)$/m);
    expect(text.stdout).toMatch(/^last error\s+\S+Z delivery \d+: timeout after 5000 ms$/m);
    const json = JSON.parse((await snsr(['apps', 'health', String(appId), '--json'], env)).stdout);
    expect(json).toMatchObject({ app: appId, delivered: 2, failed: 2, success_rate: 0.5, latency_ms: { p50: 80, p95: 5000, samples: 4 }, last_error: { status_code: null } });
  });

  it('answers an unknown app with exit 1 and a bad command line with exit 2', async () => {
    const unknown = await snsr(['apps', 'health', '9999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/app 9999 not found/);
    expect((await snsr(['apps', 'health', 'x'], env)).code).toBe(2);
    const half = await snsr(['deliveries', 'retry', '--app', String(appId)], env);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--app ID --all-failed/);
    expect((await snsr(['deliveries', 'retry', '3', '--app', String(appId), '--all-failed'], env)).code).toBe(2);
    expect((await snsr(['deliveries', 'retry', '--app', '9999', '--all-failed'], env)).stderr).toMatch(/app 9999 not found/);
  });

  it('queues every failed delivery of an app again', async () => {
    const retried = await snsr(['deliveries', 'retry', '--app', String(appId), '--all-failed'], env);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`^2 failed deliveries of app ${appId} queued again`));
    expect(await statuses()).toEqual(['delivered', 'delivered', 'pending', 'pending']);
    expect((await snsr(['deliveries', 'retry', '--app', String(appId), '--all-failed'], env)).stdout).toMatch(/^0 failed deliveries/);
  });
});
