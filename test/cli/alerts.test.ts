import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { snsr } from '../helpers/cli.js';
import { frames } from '../helpers/uplinks.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-alerts-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'cli-secret' };

describe('snsr alerts', () => {
  beforeAll(async () => {
    const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
    try {
      await context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
      const { account } = await context.accounts.create('ops@example.com', 'Secret123');
      await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
      const device = (await context.repositories.devices.bySerial('C0FE'))!;
      await context.repositories.devices.setFlags(device.id, { watched: true });
      await context.ingest.receive({ device: 'C0FE', time: 1_714_567_890, data: frames.batteryLow(1), seqNumber: 1 });
      await context.ingest.receive({ device: 'C0FE', time: 1_714_567_900, data: frames.tempHigh(2), seqNumber: 2 });
    } finally {
      await context.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("lists a module's alerts as a table and as JSON", async () => {
    const listed = await snsr(['alerts', 'list', '--module', 'c0fe'], env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+DEVICE\s+KIND\s+RAISED\s+ENDED\s+ACKED\s+MESSAGE$/);
    expect(lines[1]).toMatch(/^2\s+C0FE\s+temperature_high\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+-\s+-\s+temperature above/);
    expect(lines[2]).toMatch(/battery_low .* battery low \(2\.85 V\)$/);
    const json = JSON.parse((await snsr(['alerts', 'list', '--module', 'C0FE', '--json', '--limit', '1'], env)).stdout);
    expect(json).toMatchObject([{ id: 2, device: 'C0FE', kind: 'temperature_high', acked: null }]);
  });

  it('acknowledges every alert of a device', async () => {
    const acked = await snsr(['alerts', 'ack', 'C0FE'], env);
    expect(acked).toMatchObject({ code: 0, stdout: 'C0FE: 2 alerts acknowledged\n' });
    const json = JSON.parse((await snsr(['alerts', 'list', '--module', 'C0FE', '--json'], env)).stdout) as { acked: number | null }[];
    expect(json.every((alert) => typeof alert.acked === 'number')).toBe(true);
  });

  it('shows and sets an account\'s alert emails, refusing "on" without SMTP', async () => {
    const smtp = { ...env, SNSR_SMTP_URL: 'smtp://127.0.0.1:2525', SNSR_PUBLIC_URL: 'https://snsr.example.com' };
    expect(await snsr(['alerts', 'email', '--account', 'ops@example.com'], env)).toMatchObject({
      code: 0,
      stdout: 'alert emails for ops@example.com: off (this server has no SMTP: SNSR_SMTP_URL is unset, so no email is sent)\n',
    });
    const refused = await snsr(['alerts', 'email', 'on', '--account', 'ops@example.com'], env);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^snsr: alert emails need SMTP.*SNSR_SMTP_URL/);
    expect(await snsr(['alerts', 'email', 'on', '--account', 'OPS@example.com'], smtp)).toMatchObject({ code: 0, stdout: 'alert emails for ops@example.com: on\n' });
    expect(await snsr(['alerts', 'email', '--account', 'ops@example.com'], smtp)).toMatchObject({ code: 0, stdout: 'alert emails for ops@example.com: on\n' });
    expect(await snsr(['alerts', 'email', 'off', '--account', 'ops@example.com'], env)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^alert emails for ops@example.com: off /) });
    expect((await snsr(['alerts', 'email', 'maybe', '--account', 'ops@example.com'], env)).code).toBe(2);
    expect((await snsr(['alerts', 'email', 'on'], smtp)).code).toBe(2);
    expect(await snsr(['alerts', 'email', '--account', 'nobody@example.com'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('nobody@example.com') });
  });

  it('says what is wrong with exit code 1 for an unknown module or device', async () => {
    expect(await snsr(['alerts', 'list', '--module', 'FFFF'], env)).toMatchObject({ code: 1, stderr: 'snsr: module FFFF not found or not registered\n' });
    expect(await snsr(['alerts', 'ack', 'C0FE/9'], env)).toMatchObject({ code: 1, stderr: 'snsr: device C0FE/9 not found\n' });
  });
});
