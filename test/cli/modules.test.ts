import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';
import { snsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-modules-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'cli-modules-secret' };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Calls the API on the CLI's database, as a server started on it would answer. */
async function api(method: 'GET' | 'POST', url: string, authorization?: string, payload?: object) {
  const context = await createContext(loadConfig({ ...env }), { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  try {
    return await server.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload && { payload }) });
  } finally {
    await server.close();
    await context.close();
  }
}

const basic = `Basic ${Buffer.from('owner@example.com:Secret123').toString('base64')}`;

describe('snsr modules rekey (the real binary)', () => {
  beforeAll(async () => {
    writeFileSync(join(dir, 'catalog.csv'), 'SERIAL;KEY;PAC\nC0FE;1A2B3C4D;0123456789ABCDEF\nBEEF;DEADBEEF;FEDCBA9876543210\n');
    expect((await snsr(['catalog', 'import', join(dir, 'catalog.csv')], env)).code).toBe(0);
    expect((await snsr(['accounts', 'create', '--email', 'owner@example.com', '--password', 'Secret123'], env)).code).toBe(0);
    expect((await api('POST', '/iot/developers/modules.json', basic, [{ serial: 'C0FE', key: '1A2B3C4D' }])).json()).toMatchObject({ registered: ['C0FE'] });
  });

  it('sets a generated key for the owner, prints it last, ends the old key and records module.rekey', async () => {
    const result = await snsr(['modules', 'rekey', '--serial', 'c0fe'], env);
    expect(result.code, result.stderr).toBe(0);
    const key = result.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^[0-9A-F]{8}$/);
    expect((await api('GET', '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D')).statusCode).toBe(401);
    expect((await api('GET', `/iot/devices/crc.json?sn=C0FE&key=${key}`)).statusCode).toBe(200);
    const audit = (await api('GET', '/iot/developers/audit.json', basic)).json();
    expect(audit[0]).toMatchObject({ action: 'module.rekey', credential: 'operator', detail: { sn: 'C0FE' } });
  });

  it('takes the key given, and refuses modules nobody holds and malformed keys', async () => {
    expect((await snsr(['modules', 'rekey', '--serial', 'C0FE', '--key', 'cafe0001'], env)).stdout.trim().split('\n').at(-1)).toBe('CAFE0001');
    const unowned = await snsr(['modules', 'rekey', '--serial', 'BEEF'], env);
    expect(unowned.code).toBe(1);
    expect(unowned.stderr).toMatch(/module BEEF is not registered/);
    const bad = await snsr(['modules', 'rekey', '--serial', 'C0FE', '--key', 'nothex!!'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/key must be 8 hex digits/);
  });
});
