import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';
import { snsr } from '../helpers/cli.js';
import { pino } from 'pino';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-keys-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'), SNSR_SECRET: 'cli-keys-secret' };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Calls the API on the CLI's database, as a server started on it would answer. */
async function api(url: string, authorization: string) {
  const context = await createContext(loadConfig({ ...env }), { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  try {
    return await server.inject({ method: 'GET', url, headers: { authorization } });
  } finally {
    await server.close();
    await context.close();
  }
}

describe('snsr keys and accounts password (the real binary)', () => {
  beforeAll(async () => {
    expect((await snsr(['accounts', 'create', '--email', 'ops@example.com', '--password', 'Secret123'], env)).code).toBe(0);
  });

  it('creates a key and prints its token last; lists keys without secrets; revokes by name', async () => {
    const created = await snsr(['keys', 'create', '--email', 'ops@example.com', '--name', 'grafana', '--scope', 'read', '--expires', '90d'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/created read API key \d+ "grafana" \(snsr_\S{8}…\) for ops@example.com, expires 20\d\d-/);
    const token = created.stdout.trim().split('\n').at(-1)!;
    const secret = Buffer.from(token, 'base64').toString().split(':')[1]!;
    expect(secret).toMatch(/^snsr_/);
    expect((await api('/iot/developers/apps.json', `Basic ${token}`)).statusCode).toBe(200);

    const list = await snsr(['keys', 'list', '--email', 'ops@example.com'], env);
    expect(list.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+SCOPE\s+CREATED\s+EXPIRES\s+LAST USED\n1\s+grafana\s+snsr_\S{8}\s+read\s/);
    expect(list.stdout).not.toContain(secret);
    const json = JSON.parse((await snsr(['keys', 'list', '--email', 'ops@example.com', '--json'], env)).stdout);
    expect(json[0]).toMatchObject({ id: 1, name: 'grafana', scope: 'read', prefix: secret.slice(0, 13) });

    const revoked = await snsr(['keys', 'revoke', '--email', 'ops@example.com', '--name', 'grafana'], env);
    expect(revoked.stdout).toMatch(/revoked API key 1 "grafana"/);
    expect((await api('/iot/developers/apps.json', `Basic ${token}`)).statusCode).toBe(401);
    expect((await snsr(['keys', 'list', '--email', 'ops@example.com'], env)).stdout.trim()).toBe('no API keys');
    const audit = (await api('/iot/developers/audit.json', `Basic ${Buffer.from('ops@example.com:Secret123').toString('base64')}`)).json();
    expect(audit.map((e: { action: string; credential: string }) => [e.action, e.credential])).toEqual([['key.revoke', 'operator'], ['key.create', 'operator']]);
  });

  it('refuses bad input with a message: exit 1 for a refused request, 2 for bad usage', async () => {
    const unknown = await snsr(['keys', 'revoke', '--email', 'ops@example.com', '--name', 'nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no API key named "nope"/);
    const scope = await snsr(['keys', 'create', '--email', 'ops@example.com', '--name', 'x', '--scope', 'admin'], env);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toMatch(/--scope <scope>' argument 'admin' is invalid. must be read or full/);
    const expiry = await snsr(['keys', 'create', '--email', 'ops@example.com', '--name', 'x', '--expires', 'soon'], env);
    expect(expiry.code).toBe(2);
    expect(expiry.stderr).toMatch(/must be a duration such as 30d/);
    const nobody = await snsr(['keys', 'list', '--email', 'nobody@example.com'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/no developer account/);
  });

  it('accounts password sets a new password', async () => {
    const changed = await snsr(['accounts', 'password', '--email', 'ops@example.com', '--password', 'Changed42'], env);
    expect(changed.stdout).toMatch(/password of ops@example.com changed; 0 dashboard session\(s\) ended/);
    expect((await api('/iot/developers/apps.json', `Basic ${Buffer.from('ops@example.com:Changed42').toString('base64')}`)).statusCode).toBe(200);
    const weak = await snsr(['accounts', 'password', '--email', 'ops@example.com', '--password', 'weak'], env);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/password must be at least 6/);
  });

  it('has --help on the new commands', async () => {
    for (const command of [['keys'], ['keys', 'create'], ['keys', 'list'], ['keys', 'revoke'], ['accounts', 'password']]) {
      const result = await snsr([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: snsr/);
    }
  }, 30_000);

  it('serve refuses SNSR_SIGNUP=open without SMTP, saying why', async () => {
    const refused = await snsr(['serve'], { ...env, SNSR_SIGNUP: 'open', PORT: '0' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/SNSR_SIGNUP=open needs SNSR_SMTP_URL/);
  });
});
