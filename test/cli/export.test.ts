import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { snsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-export-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'export-secret' };
const T0 = Date.UTC(2026, 10, 1, 8);
let appId: number;

beforeAll(async () => {
  const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  await context.repositories.modules.importCatalog([{ serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' }]);
  // Registered (and attached to an app) before its data: a registration starts without earlier data.
  const { account } = await context.accounts.create('export@example.com', 'Secret123');
  await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
  appId = (await context.apps.save(account.id, { name: 'export' })).id;
  await context.apps.attach(account.id, appId, ['C0FE']);
  const device = (await context.repositories.devices.bySerial('C0FE'))!;
  for (let i = 0; i < 3; i++) {
    await context.repositories.messages.insert({
      module_serial: 'C0FE', device_id: device.id, raw_id: null, when_ms: T0 + i * 60_000, time_s: (T0 + i * 60_000) / 1000, type: 'keepalive:voltagetemp', station: '1A2B', lvl: -120,
      frame: '000300189167', frame_type: 'srv_frm_keepalive', code: 'keepalive', entry_id: 0, stamp: 0, cpt: i, retry: 0, custom: `{"voltage_mv":${3300 + i},"temperature_c":21.5}`, contrib: '{}', ctxt: '{}',
    });
  }
  const raw = await context.storage.db
    .insertInto('raw_messages')
    .values({ module_serial: 'C0FE', seq_number: 7, time_s: T0 / 1000, data: '000300189167', snr: 14, avg_snr: 12, lat: null, lng: null, received_at: T0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await context.storage.db.insertInto('rinfos').values([{ raw_id: raw.id, tap: '0A1B', rssi: -125.5, snr: 14 }, { raw_id: raw.id, tap: '1B2C', rssi: -110, snr: 10 }]).execute();
  await context.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr export (the real binary)', { timeout: 90_000 }, () => {
  it('writes a module’s range as CSV to standard output or NDJSON to a file', async () => {
    const csv = await snsr(['export', '--module', 'c0fe', '--from', '2026-11-01T08:01:00Z'], env);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^time,serial,type,temperature \(°C\),voltage \(mV\),/);
    expect(lines[1]).toBe('2026-11-01T08:01:00.000Z,C0FE,keepalive:voltagetemp,21.5,3301,,,,,,-120,1A2B,000300189167');
    const file = join(dir, 'out.ndjson');
    const ndjson = await snsr(['export', '--module', 'C0FE', '--format', 'ndjson', '--to', String(T0 + 60_000), '--output', file], env);
    expect(ndjson.code).toBe(0);
    expect(ndjson.stderr).toMatch(/wrote .*out\.ndjson/);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([
      { time: '2026-11-01T08:00:00.000Z', when: T0, serial: 'C0FE', type: 'keepalive:voltagetemp', temperature_c: 21.5, voltage_mv: 3300, signal_dbm: -120, station: '1A2B', frame: '000300189167' },
    ]);
  });

  it('writes the raw uplinks with --raw, stations joined in CSV and an array in NDJSON', async () => {
    const csv = await snsr(['export', '--raw', '--module', 'C0FE'], env);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\r\n').filter(Boolean)).toEqual([
      'time,serial,seq,data,stations (station:rssi dBm:snr dB;…)',
      '2026-11-01T08:00:00.000Z,C0FE,7,000300189167,0A1B:-125.5:14;1B2C:-110:10',
    ]);
    const ndjson = await snsr(['export', '--raw', '--module', 'c0fe', '--format', 'ndjson', '--from', String(T0 + 1000)], env);
    expect(ndjson.code).toBe(0);
    expect(ndjson.stdout).toBe('');
    const unknown = await snsr(['export', '--raw', '--module', 'FFFF'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/module FFFF is not in the catalog/);
  });

  it('says what is wrong: an unknown module, a reversed range, an unknown format', async () => {
    const unknown = await snsr(['export', '--module', 'FFFF'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/module FFFF is not in the catalog/);
    const reversed = await snsr(['export', '--module', 'C0FE', '--from', '2026-12-01', '--to', '2026-11-01'], env);
    expect(reversed.code).toBe(1);
    expect(reversed.stderr).toMatch(/from \(2026-12-01T00:00:00.000Z\) must not be after to/);
    const format = await snsr(['export', '--module', 'C0FE', '--format', 'xlsx'], env);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/Allowed choices are csv, ndjson/);
  });

  it("writes every module of an app with --app, as its owner would download it; an unknown app is exit 1, --module with --app exit 2", async () => {
    const messages = await snsr(['export', '--app', String(appId)], env);
    expect(messages.code).toBe(0);
    expect(messages.stdout).toBe((await snsr(['export', '--module', 'C0FE'], env)).stdout);
    expect(messages.stdout.split('\r\n').filter(Boolean)).toHaveLength(4);
    const raw = await snsr(['export', '--app', String(appId), '--raw', '--format', 'ndjson'], env);
    expect(raw.code).toBe(0);
    expect(raw.stdout.trimEnd().split('\n').map((line) => JSON.parse(line))).toMatchObject([{ serial: 'C0FE', seq: 7 }]);
    const unknown = await snsr(['export', '--app', '999'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/app 999 not found/);
    const both = await snsr(['export', '--app', String(appId), '--module', 'C0FE'], env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--module SERIAL or --app ID/);
    const neither = await snsr(['export'], env);
    expect(neither.code).toBe(2);
    const zero = await snsr(['export', '--app', '0'], env);
    expect(zero.code).toBe(2);
  });
});
