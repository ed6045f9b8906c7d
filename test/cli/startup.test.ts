import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, snsr, startSnsr } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-startup-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the binary in `cwd` with an environment without SNSR_* variables, as a fresh shell would. */
function snsrIn(cwd: string, args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SNSR_') && name !== 'PORT'));
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...clean, LOG_LEVEL: 'warn', ...extra } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const noStackTrace = (text: string) => expect(text).not.toMatch(/\n\s+at /);

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('snsr CLI start-up and errors (the real binary)', { timeout: 60_000 }, () => {
  it('exits 0 on help and version, 2 on a wrong command line', async () => {
    expect((await snsr(['--version'])).code).toBe(0);
    expect((await snsr(['catalog', 'import', '--help'])).code).toBe(0);
    const unknown = await snsr(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    expect((await snsr(['catalog', 'import'])).code).toBe(2);
    expect((await snsr(['catalog'])).code).toBe(2);
    expect((await snsr(['catalog', 'list', '--limit', 'lots'], env)).code).toBe(2);
    expect((await snsr(['decode', '--protocol', 'UDM99', '00'])).code).toBe(2);
  });

  it('names a missing file in words, exit 1, no stack trace', async () => {
    const missing = await snsr(['catalog', 'import', join(dir, 'nope.csv')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`snsr: cannot open ${join(dir, 'nope.csv')}: no such file or directory\n`);
  });

  it('refuses database URLs of other schemes instead of creating a file named after them', async () => {
    const cwd = mkdtempSync(join(dir, 'mysql-'));
    for (const url of ['mysql://root@localhost/snsr', 'postgres:snsr', 'redis://localhost']) {
      const result = await snsrIn(cwd, ['migrate'], { SNSR_DATABASE_URL: url });
      expect(result.code, url).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`SNSR_DATABASE_URL "${url}" is not supported: use a SQLite file path`));
    }
    expect(existsSync(join(cwd, 'mysql:'))).toBe(false);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('says when the PostgreSQL server cannot be reached or refuses', async () => {
    const closed = await snsr(['migrate'], { SNSR_DATABASE_URL: 'postgres://postgres:hunter2@127.0.0.1:1/snsr' });
    expect(closed.code).toBe(1);
    expect(closed.stderr).toMatch(/^snsr: cannot reach the database at 127\.0\.0\.1:1: connection refused/);
    noStackTrace(closed.stderr);
    const unknownHost = await snsr(['migrate'], { SNSR_DATABASE_URL: 'postgres://postgres@no-such-host.invalid/snsr' });
    expect(unknownHost.code).toBe(1);
    expect(unknownHost.stderr).toMatch(/cannot reach the database at no-such-host\.invalid: no such host/);
  });

  it('says when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = await snsr(['serve'], { ...env, HOST: '127.0.0.1', PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`snsr: port ${port} is already in use on 127\\.0\\.0\\.1: stop the program using it, or choose another with PORT=`));
      noStackTrace(result.stderr);
    } finally {
      blocker.close();
    }
  });

  it('reads .env from the working directory; the environment wins', async () => {
    const cwd = mkdtempSync(join(dir, 'dotenv-'));
    writeFileSync(join(cwd, '.env'), '# comment\nSNSR_DATABASE_URL=from-dotenv.sqlite\nSNSR_TIMEZONE=Mars/Olympus\n');
    const fromFile = await snsrIn(cwd, ['migrate']);
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toMatch(/SNSR_TIMEZONE must be an IANA time zone/);
    const overridden = await snsrIn(cwd, ['migrate'], { SNSR_TIMEZONE: 'Europe/Paris' });
    expect(overridden.stdout).toMatch(/applied: 0001_initial/);
    expect(existsSync(join(cwd, 'from-dotenv.sqlite'))).toBe(true);
  });

  it('serve prints the dashboard URL, the database, and a warning while SNSR_NETWORK_TOKEN is unset', async () => {
    const base = { ...env, PORT: '0', HOST: '127.0.0.1', SNSR_NETWORK_TOKEN: '' };
    for (const token of ['', 'network-secret']) {
      const { child, output } = await startSnsr(['serve'], { ...base, SNSR_NETWORK_TOKEN: token });
      try {
        await until(() => output().includes('database   '), 'the banner');
        const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
        expect(output()).toContain(`dashboard  http://127.0.0.1:${port}/`);
        expect(output()).toContain(`database   SQLite ${env.SNSR_DATABASE_URL}`);
        if (token === '') expect(output()).toMatch(/warning: SNSR_NETWORK_TOKEN is not set, so every uplink .* is refused \(503\)/);
        else expect(output()).not.toMatch(/SNSR_NETWORK_TOKEN/);
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
