import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snsr, startSnsr } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr CLI (the real binary)', { timeout: 90_000 }, () => {
  it('has --help on every command', async () => {
    for (const command of [[], ['serve'], ['migrate'], ['accounts'], ['accounts', 'create'], ['accounts', 'token'], ['catalog'], ['catalog', 'import'], ['catalog', 'list'], ['decode']]) {
      const result = await snsr([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: snsr/);
    }
  });

  it('migrates, then says the schema is up to date', async () => {
    expect((await snsr(['migrate'], env)).stdout).toMatch(/applied: 0001_initial/);
    expect((await snsr(['migrate'], env)).stdout).toMatch(/up to date/);
  });

  it('creates an account and prints its token on the last line; token --regenerate replaces it', async () => {
    const created = await snsr(['accounts', 'create', '--email', 'ops@example.com', '--password', 'Secret123'], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    expect(Buffer.from(token, 'base64').toString()).toMatch(/^ops@example.com:/);
    expect((await snsr(['accounts', 'token', '--email', 'OPS@example.com'], env)).stdout.trim()).toBe(token);
    const regenerated = (await snsr(['accounts', 'token', '--email', 'ops@example.com', '--regenerate'], env)).stdout.trim();
    expect(regenerated).not.toBe(token);
    expect((await snsr(['accounts', 'token', '--email', 'ops@example.com'], env)).stdout.trim()).toBe(regenerated);
  });

  it('refuses a duplicate account, a weak password and an unknown email with a message and exit 1', async () => {
    const duplicate = await snsr(['accounts', 'create', '--email', 'ops@example.com', '--password', 'Secret123'], env);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/already exists/);
    const weak = await snsr(['accounts', 'create', '--email', 'weak@example.com', '--password', 'weak'], env);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/password must be at least 6/);
    const unknown = await snsr(['accounts', 'token', '--email', 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no developer account/);
  });

  it('imports a catalog, updates on re-import, lists it, and rejects a bad file whole', async () => {
    const file = join(dir, 'catalog.csv');
    writeFileSync(file, 'SERIAL;KEY;PAC;PROTOCOL\nC0FE;1A2B3C4D;0123456789ABCDEF;UDM23\nbeef;deadbeef;fedcba9876543210;UDM22\n');
    expect((await snsr(['catalog', 'import', file], env)).stdout).toMatch(/imported 2 modules \(2 new, 0 updated\)/);
    writeFileSync(file, 'SERIAL;KEY;PAC\nC0FE;11111111;0123456789ABCDEF\n');
    expect((await snsr(['catalog', 'import', file], env)).stdout).toMatch(/\(0 new, 1 updated\)/);
    const list = await snsr(['catalog', 'list'], env);
    expect(list.stdout.trim().split('\n')).toEqual(['SERIAL;KEY;PAC;PROTOCOL;ACCOUNT', 'BEEF;DEADBEEF;FEDCBA9876543210;UDM22;', 'C0FE;11111111;0123456789ABCDEF;UDM23;']);
    writeFileSync(file, 'SERIAL;KEY;PAC\nAAAA;11111111;0123456789ABCDEF\nBBBB;nothex;0123456789ABCDEF\n');
    const bad = await snsr(['catalog', 'import', file], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/line 3: key "NOTHEX" must be 8 hex digits/);
    expect((await snsr(['catalog', 'list'], env)).stdout).not.toMatch(/AAAA/);
  });

  it('reports configuration errors clearly', async () => {
    const result = await snsr(['migrate'], { ...env, SNSR_TIMEZONE: 'Mars/Olympus' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/SNSR_TIMEZONE/);
  });

  it('serves: /healthz answers, and SIGTERM stops it cleanly', async () => {
    const { child, output } = await startSnsr(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1' });
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(response.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
