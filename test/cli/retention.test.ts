import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { snsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-retention-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'retention-secret', SNSR_RETENTION_RAW_DAYS: '30' };
let appId = 0;

beforeAll(async () => {
  const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  await context.repositories.modules.importCatalog([
    { serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' },
    { serial: '0ACE', key: '0000ACE0', pac: '00000000000ACE00', protocol: 'UDM23' },
  ]);
  const { account } = await context.accounts.create('dev@example.com', 'Secret123');
  await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
  appId = (await context.apps.save(account.id, { name: 'Archive' })).id;
  await context.apps.attach(account.id, appId, ['C0FE']);
  await context.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr retention (the real binary)', { timeout: 90_000 }, () => {
  it("shows the operator's defaults with the variables that set them", async () => {
    const shown = await snsr(['retention'], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^messages\s+kept forever\s+SNSR_RETENTION_MESSAGES_DAYS$/m);
    expect(shown.stdout).toMatch(/^raw\s+30 days\s+SNSR_RETENTION_RAW_DAYS$/m);
    expect(shown.stdout).toMatch(/^audit\s+90 days\s+SNSR_AUDIT_RETENTION_DAYS$/m);
  });

  it("sets an app's choice and a module's, each option alone, and shows what is in force and from where", async () => {
    const app = await snsr(['retention', '--app', String(appId), '--messages-days', '365'], env);
    expect(app.code, app.stderr).toBe(0);
    expect(app.stdout).toMatch(/^messages\s+365 days$/m);
    expect(app.stdout).toMatch(/^raw\s+no choice \(the operator's default: 30 days\)$/m);
    const inherited = await snsr(['retention', '--module', 'c0fe'], env);
    expect(inherited.stdout).toMatch(new RegExp(`^messages\\s+365 days: app ${appId} \\(Archive\\), the longest of its apps$`, 'm'));
    expect(inherited.stdout).toMatch(/^raw\s+30 days: the operator's default$/m);

    const own = await snsr(['retention', '--module', 'C0FE', '--raw-days', '0', '--json'], env);
    expect(own.code, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ serial: 'C0FE', messages_days: null, raw_days: 0, effective: { messages_days: 365, raw_days: 0 }, source: { raw_days: { from: 'module' } } });
    const cleared = await snsr(['retention', '--app', String(appId), '--messages-days', 'default', '--json'], env);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ id: appId, messages_days: null, raw_days: null });
    expect(JSON.parse((await snsr(['retention', '--module', 'C0FE', '--json'], env)).stdout)).toMatchObject({ effective: { messages_days: 0, raw_days: 0 } });
  });

  it('says what is wrong: an unknown or unregistered module, an unknown app, bad days, options that do not go together', async () => {
    expect((await snsr(['retention', '--module', 'FFFF'], env)).stderr).toMatch(/module FFFF is not in the catalog/);
    const unregistered = await snsr(['retention', '--module', '0ACE', '--messages-days', '3'], env);
    expect(unregistered.code).toBe(1);
    expect(unregistered.stderr).toMatch(/module 0ACE is not registered/);
    const unknown = await snsr(['retention', '--app', '999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/app 999 not found/);
    const range = await snsr(['retention', '--app', String(appId), '--raw-days', '40000'], env);
    expect(range.code).toBe(1);
    expect(range.stderr).toMatch(/raw_days must be from 0/);
    const text = await snsr(['retention', '--module', 'C0FE', '--messages-days', 'week'], env);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/must be a number of days/);
    const both = await snsr(['retention', '--module', 'C0FE', '--app', String(appId)], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give --module or --app, not both/);
    expect((await snsr(['retention', '--messages-days', '3'], env)).code).toBe(2);
  });
});
