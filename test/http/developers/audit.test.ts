import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, PASSWORD } from '../../helpers/app.js';
import { deliveryFixture } from '../../delivery/fixture.js';
import type { DeliveryFixture } from '../../delivery/fixture.js';
import { HOST, ORIGIN, sameOrigin } from '../../helpers/session.js';
import { startAccountPruner } from '../../../src/lifecycle/account-pruner.js';
import { SignupsRepository } from '../../../src/storage/signups-repository.js';
import { PasswordResetsRepository } from '../../../src/storage/password-resets-repository.js';

interface Entry {
  id: number;
  action: string;
  at: number;
  credential: string | null;
  key?: string;
  address: string | null;
  detail?: Record<string, unknown>;
}

const EMAIL = 'hooks@example.com';
const DAY = 86_400_000;

describe.each(dialects)('audit log (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  const auth = basic(EMAIL, PASSWORD);
  beforeAll(async () => {
    fixture = await deliveryFixture(dialect);
    await fixture.app.context.accounts.create('bystander@example.com', PASSWORD);
  });
  afterAll(() => fixture.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown, remoteAddress = '203.0.113.7') =>
    fixture.app.server.inject({ method, url, headers, remoteAddress, ...(payload !== undefined && { payload: payload as object }) });
  const log = async (authorization = auth, query = 'limit=1000') => {
    const response = await call('GET', `/iot/developers/audit.json?${query}`, { authorization });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Entry[];
  };

  it('answers 401 without credentials, 404 for an unknown account, 400 for bad paging', async () => {
    expect((await call('GET', '/iot/developers/audit.json', {})).statusCode).toBe(401);
    expect((await call('GET', '/iot/developers/audit.json', { authorization: basic('ghost@example.com', PASSWORD) })).statusCode).toBe(404);
    for (const [query, name] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=abc', 'limit'], ['before=0', 'before'], ['before=x', 'before']]) {
      const response = await call('GET', `/iot/developers/audit.json?${query}`, { authorization: auth });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().message, query).toMatch(new RegExp(name));
    }
  });

  it('records every listed action once, with the credential used and the client address', async () => {
    const db = fixture.db;
    const { context } = fixture.app;
    const browser = { host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin' };
    const expected: [string, string | null, string | undefined][] = [];
    const step = async (action: string, credential: string | null, request: Promise<{ statusCode: number; body: string }>, status = 200, key?: string) => {
      const response = await request;
      expect(response.statusCode, `${action}: ${response.body}`).toBe(status);
      expected.push([action, credential, key]);
      return response;
    };

    await step('signin.failed', null, call('POST', '/iot/developers/session.json', browser, { email: EMAIL, password: 'Wrong123' }), 401);
    const signedIn = await step('signin', 'password', call('POST', '/iot/developers/session.json', browser, { email: EMAIL, password: PASSWORD }));
    const cookie = sameOrigin(`snsr_session=${(signedIn as unknown as { cookies: { value: string }[] }).cookies[0]!.value}`);
    await step('signin', 'password', call('GET', '/security/authentication', { authorization: auth }));
    await step('signin.failed', null, call('GET', '/security/authentication', { authorization: basic(EMAIL, 'Wrong123') }), 401);
    const token = (await step('token.regenerate', 'session', call('POST', '/iot/developers/token.json', cookie))).body;
    const tokenAuth = `Basic ${JSON.parse(token).token}`;
    const key = JSON.parse((await step('key.create', 'session', call('POST', '/iot/developers/keys.json', cookie, { name: 'deployer' }))).body);
    const keyAuth = `Basic ${key.token}`;
    const created = JSON.parse((await step('app.create', 'key', call('POST', '/iot/developers/apps.json', { authorization: keyAuth }, { name: 'audited' }), 200, 'deployer')).body);
    await step('app.update', 'key', call('POST', '/iot/developers/apps.json', { authorization: keyAuth }, { id: created.id, name: 'audited 2' }), 200, 'deployer');
    await step('app.attach', 'token', call('POST', `/iot/developers/apps/${created.id}/modules/attach.json`, { authorization: tokenAuth }, { serials: ['C0FE'] }));
    await step('app.detach', 'token', call('POST', `/iot/developers/apps/${created.id}/modules/detach.json`, { authorization: tokenAuth }, { serials: ['C0FE'] }));
    await step('module.register', 'password', call('POST', '/iot/developers/modules.json', { authorization: auth }, [{ serial: '0ACE', key: '0000ACE0' }]));
    const device = (await call('GET', '/iot/developers/device.json?sn=0ACE', { authorization: auth })).json();
    await step('module.unregister', 'password', call('DELETE', `/iot/developers/modules.json?id=${device.id}&sn=0ACE`, { authorization: auth }));
    const hooked = await fixture.createApp('http://127.0.0.1:9/hook', 'retried');
    await fixture.message();
    const delivery = (await fixture.deliveries()).find((d) => d.app_id === hooked.id)!;
    await db.updateTable('deliveries').set({ status: 'failed', attempts: 8 }).where('id', '=', delivery.id).execute();
    await step('delivery.retry', 'session', call('POST', `/iot/developers/apps/${hooked.id}/deliveries/${delivery.id}/retry.json`, cookie));
    await step('password.change.failed', 'session', call('POST', '/iot/developers/updatePassword.json', cookie, { currentpwd: 'Wrong123', newpwd: 'NewPass42', confirmpwd: 'NewPass42' }), 401);
    await step('password.change', 'session', call('POST', '/iot/developers/updatePassword.json', cookie, { currentpwd: PASSWORD, newpwd: PASSWORD + 'x', confirmpwd: PASSWORD + 'x' }));
    await context.accounts.setPassword(await context.accounts.byEmail(EMAIL), PASSWORD, PASSWORD);
    await step('git.alias', 'session', call('POST', '/iot/developers/registerGit.json', cookie, { gitAlias: 'hooks' }));
    await step('app.delete', 'session', call('DELETE', `/iot/developers/apps.json?id=${created.id}`, cookie));
    await step('key.revoke', 'session', call('DELETE', `/iot/developers/keys.json?id=${key.id}`, cookie));
    await step('signout', 'session', call('DELETE', '/iot/developers/session.json', cookie));

    // What failed or was refused leaves no entry.
    expect((await call('DELETE', '/iot/developers/apps.json?id=999999', { authorization: auth })).statusCode).toBe(404);
    expect((await call('POST', '/iot/developers/apps.json', { authorization: auth }, { name: '' })).statusCode).toBe(400);

    const entries = await log();
    expect(entries.map((e) => [e.action, e.credential, e.key])).toEqual(expected.reverse());
    for (const entry of entries) {
      expect(entry.address).toBe('203.0.113.7');
      expect(entry.at).toBeGreaterThan(Date.now() - 120_000);
    }
    const find = (action: string) => entries.find((e) => e.action === action)!;
    expect(find('key.create').detail).toMatchObject({ name: 'deployer', scope: 'full', prefix: key.prefix });
    expect(find('key.revoke').detail).toMatchObject({ id: key.id, name: 'deployer' });
    expect(find('app.create').detail).toEqual({ id: created.id, name: 'audited' });
    expect(find('app.update').detail).toEqual({ id: created.id, name: 'audited 2' });
    expect(find('app.attach').detail).toEqual({ app: created.id, serials: ['C0FE'] });
    expect(find('app.delete').detail).toEqual({ id: String(created.id) });
    expect(find('module.register').detail).toMatchObject({ registered: ['0ACE'] });
    expect(find('module.unregister').detail).toEqual({ id: String(device.id), sn: '0ACE' });
    expect(find('delivery.retry').detail).toEqual({ app: hooked.id, delivery: delivery.id });
    expect(JSON.stringify(entries)).not.toMatch(/Secret123|NewPass42|snsr_[A-Za-z0-9_-]{20}/);
    // Newest first, strictly.
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    // Nothing leaks to another account's log.
    expect(await log(basic('bystander@example.com', PASSWORD))).toEqual([]);
  });

  it('pages with limit and before (an entry id), newest first', async () => {
    for (let i = 0; i < 5; i++) expect((await call('GET', '/security/authentication', { authorization: auth })).statusCode).toBe(200);
    const all = await log();
    expect(all.length).toBeGreaterThan(20);
    const first = await log(auth, 'limit=5');
    expect(first).toEqual(all.slice(0, 5));
    const second = await log(auth, `limit=5&before=${first.at(-1)!.id}`);
    expect(second).toEqual(all.slice(5, 10));
    expect((await log()).length).toBe(all.length); // reading the log is not itself logged
    expect(await log(auth, `before=${all.at(-1)!.id}`)).toEqual([]);
    expect(await log(auth, '')).toHaveLength(20);
  });

  it('prunes entries past SNSR_AUDIT_RETENTION_DAYS, and ended sessions, in small batches in the background', async () => {
    const { context } = fixture.app;
    const db = fixture.db;
    const accountId = fixture.accountId;
    const old = Date.now() - 91 * DAY;
    await db.insertInto('audit_log').values(Array.from({ length: 5 }, (_, i) => ({ account_id: accountId, at: old + i, action: 'signin', credential: 'password', key_name: null, address: null, detail: null }))).execute();
    await db.insertInto('sessions').values({ id_hash: 'ended', account_id: accountId, created_at: old, last_used_at: old, expires_at: old + DAY, address: null, user_agent: null }).execute();
    const recent = (await log()).length - 5;
    const pruner = startAccountPruner(
      { audit: context.audit, sessions: context.sessions, signups: new SignupsRepository(db), resets: new PasswordResetsRepository(db) },
      pino({ level: 'silent' }),
      { auditRetentionMs: 90 * DAY, batch: 2, intervalMs: 3_600_000 },
    );
    try {
      const deleted = await pruner.runOnce();
      expect(deleted).toMatchObject({ 'audit entries': 5, sessions: 1 });
      expect(await log()).toHaveLength(recent);
      expect(await db.selectFrom('sessions').select('id_hash').where('id_hash', '=', 'ended').execute()).toEqual([]);
      expect((await pruner.runOnce())['audit entries']).toBe(0);
    } finally {
      await pruner.stop();
    }
  });
});
