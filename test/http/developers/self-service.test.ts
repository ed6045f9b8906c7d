import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, importCatalog, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { link, startSmtp } from '../../helpers/smtp.js';
import type { TestSmtp } from '../../helpers/smtp.js';
import { sameOrigin, signIn } from '../../helpers/session.js';
import { ConfigError, loadConfig } from '../../../src/config.js';

const PUBLIC_URL = 'https://snsr.example.com';
const ACTIVATION = `${PUBLIC_URL}/dashboards/developer.html#?uuid=`;
const RESET = `${PUBLIC_URL}/reset-password#token=`;

describe('sign-up settings', () => {
  it('refuse SNSR_SIGNUP=open without SMTP, SMTP without a public URL, and unknown values', () => {
    expect(() => loadConfig({ SNSR_SIGNUP: 'open' })).toThrow(ConfigError);
    expect(() => loadConfig({ SNSR_SIGNUP: 'open' })).toThrow(/SNSR_SIGNUP=open needs SNSR_SMTP_URL/);
    expect(() => loadConfig({ SNSR_SMTP_URL: 'smtp://127.0.0.1:2525' })).toThrow(/SNSR_SMTP_URL needs SNSR_PUBLIC_URL/);
    expect(() => loadConfig({ SNSR_SIGNUP: 'maybe' })).toThrow(/SNSR_SIGNUP must be closed or open/);
    expect(() => loadConfig({ SNSR_SMTP_URL: 'http://mail', SNSR_PUBLIC_URL: PUBLIC_URL })).toThrow(/SNSR_SMTP_URL must be a smtp or smtps URL/);
    expect(() => loadConfig({ SNSR_PUBLIC_URL: 'snsr.example.com' })).toThrow(/SNSR_PUBLIC_URL must be a URL/);
    const config = loadConfig({ SNSR_SIGNUP: 'open', SNSR_SMTP_URL: 'smtp://127.0.0.1:2525', SNSR_PUBLIC_URL: `${PUBLIC_URL}/` });
    expect(config.accounts.signup).toBe('open');
    expect(config.publicUrl).toBe(PUBLIC_URL);
    expect(loadConfig({}).accounts.signup).toBe('closed');
  });
});

describe.each(dialects)('self-service accounts, sign-up closed (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
  });
  afterAll(() => app.close());

  it('register.json (and /mcs/register.json) answer 403 saying the operator creates accounts; password reset is unavailable', async () => {
    for (const url of ['/iot/developers/register.json', '/mcs/register.json']) {
      const response = await app.server.inject({ method: 'POST', url, payload: { email: 'new@example.com', password: PASSWORD, repassword: PASSWORD } });
      expect(response.statusCode, url).toBe(403);
      expect(response.json().message).toMatch(/created by its operator \(snsr accounts create\)/);
    }
    const forgot = await app.server.inject({ method: 'POST', url: '/iot/developers/password/forgot.json', payload: { email: 'new@example.com' } });
    expect(forgot.statusCode).toBe(403);
    expect(forgot.json().message).toMatch(/no SMTP configured/);
  });
});

describe.each(dialects)('self-service accounts, sign-up open, against a real SMTP server (%s)', (dialect) => {
  let app: TestApp;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
    app = await startApp(dialect, { SNSR_SIGNUP: 'open', SNSR_SMTP_URL: smtp.url, SNSR_PUBLIC_URL: PUBLIC_URL, SNSR_MAIL_FROM: 'snsr <noreply@snsr.example.com>' });
    await importCatalog(app);
  });
  afterAll(async () => {
    await app.close();
    await smtp.close();
  });

  const post = (url: string, payload?: object, headers: Record<string, string> = {}) => app.server.inject({ method: 'POST', url, headers, ...(payload && { payload }) });
  const register = (email: string, extra: object = {}, headers: Record<string, string> = {}) =>
    post('/iot/developers/register.json', { email, password: PASSWORD, repassword: PASSWORD, ...extra }, headers);
  const activate = (uuid: string) => post(`/iot/developers/activatation/${uuid}`);
  const uuidOf = (url: string) => url.slice(ACTIVATION.length);
  const signInStatus = async (email: string, password = PASSWORD) =>
    (await post('/iot/developers/session.json', { email, password }, { host: 'snsr.test', origin: 'http://snsr.test' })).statusCode;

  it('signs up, emails the activation link, activates it once; the account cannot sign in before', async () => {
    const email = 'newcomer@example.com';
    // The portal sends a Basic header built from the account being created: it is ignored.
    const response = await register(email, { firstname: 'Ada', lastname: 'Lovelace' }, { authorization: basic(email, PASSWORD) });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    const mail = await smtp.next(email, /Activate your snsr account/);
    expect(mail.from).toBe('snsr <noreply@snsr.example.com>');
    const url = link(mail, ACTIVATION);
    expect(uuidOf(url)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    expect(await signInStatus(email)).toBe(401);
    const basicRefused = await app.server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: { authorization: basic(email, PASSWORD) } });
    expect(basicRefused.statusCode).toBe(401);
    expect(basicRefused.json().message).toMatch(/not activated yet/);

    const activated = await activate(uuidOf(url));
    expect(activated.statusCode).toBe(200);
    expect(activated.body).toBe('');
    expect(await signInStatus(email)).toBe(200);
    const profile = await app.server.inject({ method: 'GET', url: '/iot/developers.json', headers: { authorization: basic(email, PASSWORD) } });
    expect(profile.json()).toEqual({ customer: { email, firstname: 'Ada', lastname: 'Lovelace', gitAlias: null } });

    const again = await activate(uuidOf(url));
    expect(again.statusCode).toBe(410);
    expect(again.json().message).toMatch(/already used/);
    const audit = await app.server.inject({ method: 'GET', url: '/iot/developers/audit.json', headers: { authorization: basic(email, PASSWORD) } });
    expect(audit.json().map((e: { action: string }) => e.action)).toEqual(['signin', 'account.activate']);
    expect(audit.json()[1].credential).toBe('link');
  });

  it('answers an address that already has an account exactly the same, and emails it that it has one', async () => {
    const dev = await createDeveloper(app, 'existing@example.com');
    const fresh = await register('unused@example.com');
    const existing = await register(dev.email, { password: 'Other123', repassword: 'Other123' });
    expect(existing.statusCode).toBe(fresh.statusCode);
    expect(existing.body).toBe(fresh.body);
    expect(Object.keys(existing.headers).sort()).toEqual(Object.keys(fresh.headers).sort());
    const mail = await smtp.next(dev.email);
    expect(mail.subject).toBe('Your snsr account');
    expect(mail.text).toContain(`${PUBLIC_URL}/forgot-password`);
    // Its password is untouched and no sign-up is pending for it.
    expect(await signInStatus(dev.email)).toBe(200);
    expect(await signInStatus(dev.email, 'Other123')).toBe(401);
    await smtp.next('unused@example.com');
  });

  it.each([
    [{ password: PASSWORD, repassword: PASSWORD }, /email is required/],
    [{ email: 'not-an-email', password: PASSWORD, repassword: PASSWORD }, /email "not-an-email" is not an email address/],
    [{ email: 'weak@example.com', password: 'weak', repassword: 'weak' }, /password must be at least 6 characters/],
    [{ email: 'weak@example.com', password: 'nodigits', repassword: 'nodigits' }, /password must contain an upper-case letter/],
    [{ email: 'weak@example.com', password: PASSWORD, repassword: 'Secret124' }, /repassword does not match password/],
    [{ email: 'weak@example.com', password: PASSWORD }, /repassword is required/],
    [{ email: 'weak@example.com', password: PASSWORD, repassword: PASSWORD, firstname: 'x'.repeat(101) }, /firstname must be at most 100/],
  ])('refuses a sign-up %j with 400 naming the problem', async (payload, message) => {
    const response = await post('/iot/developers/register.json', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(message);
  });

  it('refuses unknown, malformed and expired activation links, naming the problem', async () => {
    expect((await activate('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const malformed = await activate('not-a-uuid');
    expect(malformed.statusCode).toBe(404);
    expect(malformed.json().message).toMatch(/activation link is unknown/);
    await register('late@example.com');
    const uuid = uuidOf(link(await smtp.next('late@example.com'), ACTIVATION));
    await app.context.storage.db.updateTable('signups').set({ expires_at: Date.now() - 1 }).where('email', '=', 'late@example.com').execute();
    const expired = await activate(uuid);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().message).toMatch(/expired on .*sign up again/);
    // An expired sign-up is forgotten: the address is simply unknown.
    expect(await signInStatus('late@example.com')).toBe(404);
  });

  it('each link activates the password chosen with it; using one spends the others', async () => {
    await register('twice@example.com', { password: 'First123', repassword: 'First123' });
    const first = uuidOf(link(await smtp.next('twice@example.com'), ACTIVATION));
    await register('twice@example.com', { password: 'Second123', repassword: 'Second123' });
    const second = uuidOf(link(await smtp.next('twice@example.com'), ACTIVATION));
    expect((await activate(first)).statusCode).toBe(200);
    expect(await signInStatus('twice@example.com', 'First123')).toBe(200);
    expect(await signInStatus('twice@example.com', 'Second123')).toBe(401);
    expect((await activate(second)).statusCode).toBe(410);
  });

  it('keeps at most three live links per address', async () => {
    for (let i = 0; i < 5; i++) expect((await register('flood@example.com')).statusCode).toBe(200);
    const rows = await app.context.storage.db.selectFrom('signups').select('id').where('email', '=', 'flood@example.com').execute();
    expect(rows).toHaveLength(3);
    for (let i = 0; i < 3; i++) await smtp.next('flood@example.com');
  });

  it('resets a forgotten password by a single-use emailed link that ends every session', async () => {
    const dev = await createDeveloper(app, 'forgetful@example.com');
    const cookie = await signIn(app, dev.email);
    expect((await post('/iot/developers/password/forgot.json', { email: 'nobody@example.com' })).statusCode).toBe(200);
    const asked = await post('/iot/developers/password/forgot.json', { email: 'Forgetful@Example.com' });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toBe('');
    const mail = await smtp.next(dev.email, /Reset your snsr password/);
    const token = link(mail, RESET).slice(RESET.length);

    const mismatch = await post('/iot/developers/password/reset.json', { token, password: 'Renewed42', repassword: 'Renewed43' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().message).toMatch(/repassword does not match password/);
    // The typo did not spend the link.
    const reset = await post('/iot/developers/password/reset.json', { token, password: 'Renewed42', repassword: 'Renewed42' });
    expect(reset.statusCode).toBe(200);
    expect(await signInStatus(dev.email)).toBe(401);
    expect(await signInStatus(dev.email, 'Renewed42')).toBe(200);
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: sameOrigin(cookie) })).statusCode).toBe(401);

    const reused = await post('/iot/developers/password/reset.json', { token, password: 'Again4242', repassword: 'Again4242' });
    expect(reused.statusCode).toBe(410);
    expect(reused.json().message).toMatch(/already used/);
    const log = await app.server.inject({ method: 'GET', url: '/iot/developers/audit.json', headers: { authorization: basic(dev.email, 'Renewed42') } });
    expect(log.json().map((e: { action: string }) => e.action)).toEqual(['signin', 'signin.failed', 'password.reset', 'password.reset.request', 'signin']);
  });

  it('refuses unknown, expired and incomplete reset requests', async () => {
    const dev = await createDeveloper(app, 'late-reset@example.com');
    await post('/iot/developers/password/forgot.json', { email: dev.email });
    const token = link(await smtp.next(dev.email), RESET).slice(RESET.length);
    await app.context.storage.db.updateTable('password_resets').set({ expires_at: Date.now() - 1 }).execute();
    const expired = await post('/iot/developers/password/reset.json', { token, password: 'Renewed42', repassword: 'Renewed42' });
    expect(expired.statusCode).toBe(410);
    expect(expired.json().message).toMatch(/expired on .*ask for a new one/);
    const unknown = await post('/iot/developers/password/reset.json', { token: 'x'.repeat(43), password: 'Renewed42', repassword: 'Renewed42' });
    expect(unknown.statusCode).toBe(404);
    expect((await post('/iot/developers/password/reset.json', { password: 'Renewed42', repassword: 'Renewed42' })).json().message).toMatch(/token is required/);
    expect((await post('/iot/developers/password/forgot.json', {})).json().message).toMatch(/email is required/);
    expect((await post('/iot/developers/password/forgot.json', { email: 'nope' })).statusCode).toBe(400);
  });

  it('GET developers.json answers the profile; 401 without credentials', async () => {
    for (const base of ['/iot', '/mcs']) {
      expect((await app.server.inject({ method: 'GET', url: `${base}/developers.json` })).statusCode).toBe(401);
      expect((await app.server.inject({ method: 'GET', url: `${base}/developers.json`, headers: { authorization: basic('ghost@example.com', PASSWORD) } })).statusCode).toBe(404);
    }
    const dev = await createDeveloper(app, 'profile@example.com');
    await app.server.inject({ method: 'POST', url: '/iot/developers/registerGit.json', headers: { authorization: dev.auth }, payload: { gitAlias: 'prof' } });
    const response = await app.server.inject({ method: 'GET', url: '/mcs/developers.json', headers: { authorization: dev.auth } });
    expect(response.json()).toEqual({ customer: { email: dev.email, firstname: null, lastname: null, gitAlias: 'prof' } });
  });

  it("DELETE developers.json deletes the caller's own account after unregistering its modules; another email is 404", async () => {
    const dev = await createDeveloper(app, 'leaving@example.com');
    const stays = await createDeveloper(app, 'stays@example.com');
    const auth = { authorization: dev.auth };
    const registered = await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: auth, payload: [{ serial: 'C0FE', key: '1A2B3C4D' }] });
    expect(registered.json().registered).toEqual(['C0FE']);
    const created = await app.server.inject({ method: 'POST', url: '/iot/developers/apps.json', headers: auth, payload: { name: 'goes too' } });
    await app.server.inject({ method: 'POST', url: `/iot/developers/apps/${created.json().id}/modules/attach.json`, headers: auth, payload: { serials: ['C0FE'] } });
    const cookie = await signIn(app, dev.email);
    const accountId = (await app.context.accounts.byEmail(dev.email)).id;

    const missing = await app.server.inject({ method: 'DELETE', url: '/iot/developers.json', headers: auth });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/email is required/);
    const theirs = await app.server.inject({ method: 'DELETE', url: `/iot/developers.json?email=${stays.email}`, headers: auth });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().message).toMatch(/can only delete itself/);
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers.json', headers: { authorization: stays.auth } })).statusCode).toBe(200);

    const deleted = await app.server.inject({ method: 'DELETE', url: '/iot/developers.json?email=Leaving@Example.com', headers: sameOrigin(cookie) });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.cookies.find((c) => c.name === 'snsr_session')?.value).toBe('');
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/apps.json', headers: auth })).statusCode).toBe(404);
    const db = app.context.storage.db;
    expect(await db.selectFrom('apps').select('id').where('id', '=', created.json().id).execute()).toEqual([]);
    for (const table of ['sessions', 'audit_log', 'apps'] as const) {
      expect(await db.selectFrom(table).select('account_id').where('account_id', '=', accountId).execute(), table).toEqual([]);
    }
    // The module is free again: another account registers it.
    const taken = await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: { authorization: stays.auth }, payload: [{ serial: 'C0FE', key: '1A2B3C4D' }] });
    expect(taken.json().registered).toEqual(['C0FE']);
    // The address can sign up again.
    expect((await register(dev.email)).statusCode).toBe(200);
    await smtp.next(dev.email, /Activate/);
  });
});
