import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, importCatalog, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { HOST, ORIGIN, sameOrigin, signIn } from '../../helpers/session.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const MINUTE = 60_000;

describe.each(dialects)('dashboard sessions (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_SESSION_IDLE_MINUTES: '30', SNSR_SESSION_MAX_HOURS: '8' });
    await importCatalog(app);
  });
  afterAll(() => app.close());

  const get = (url: string, headers: Record<string, string>) => app.server.inject({ method: 'GET', url, headers });
  const post = (url: string, headers: Record<string, string>, payload?: object) =>
    app.server.inject({ method: 'POST', url, headers, ...(payload && { payload }) });
  const sessions = (accountId: number) => app.context.storage.db.selectFrom('sessions').selectAll().where('account_id', '=', accountId).execute();
  const browser = { host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin' };

  it('refuses a sign-in without email or password (400), for an unknown account (404), with a wrong password (401)', async () => {
    const dev = await createDeveloper(app, 'refused@example.com');
    const cases: [object, number, RegExp][] = [
      [{ password: PASSWORD }, 400, /email is required/],
      [{ email: dev.email }, 400, /password is required/],
      [{ email: 'ghost@example.com', password: PASSWORD }, 404, /no developer account/],
      [{ email: dev.email, password: 'Wrong123' }, 401, /password is not right/],
      // The account token is an API credential, not a password: it does not open a dashboard session.
      [{ email: dev.email, password: Buffer.from(dev.token, 'base64').toString().split(':')[1]! }, 401, /password is not right/],
    ];
    for (const [payload, status, message] of cases) {
      const response = await post('/iot/developers/session.json', browser, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(status);
      expect(response.json().message).toMatch(message);
      expect(response.cookies).toEqual([]);
    }
  });

  it('signs in: an HttpOnly, SameSite=Strict session cookie whose id the database keeps only hashed', async () => {
    const dev = await createDeveloper(app, 'cookie@example.com');
    const account = await app.context.accounts.byEmail(dev.email);
    const before = Date.now();
    const response = await post('/iot/developers/session.json', browser, { email: 'Cookie@Example.com', password: PASSWORD });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.email).toBe('cookie@example.com');
    expect(body.created).toBeGreaterThanOrEqual(before);
    expect(body.expires - body.created).toBe(30 * MINUTE);
    const [cookie] = response.cookies;
    expect(cookie).toMatchObject({ name: 'snsr_session', path: '/', httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.secure).toBeUndefined();
    expect(cookie!.maxAge).toBeUndefined();
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await sessions(account.id);
    expect(row!.id_hash).toBe(sha256(cookie!.value));
    expect(row!.expires_at - row!.created_at).toBe(8 * 60 * MINUTE);
    expect(JSON.stringify(await sessions(account.id))).not.toContain(cookie!.value);
  });

  it('the cookie authenticates developer and device calls from the same origin, instead of a Basic header', async () => {
    const dev = await createDeveloper(app, 'calls@example.com');
    const cookie = await signIn(app, dev.email);
    const headers = sameOrigin(cookie);
    expect((await get('/iot/developers/account.json', headers)).json().email).toBe(dev.email);
    const registered = await post('/iot/developers/modules.json', headers, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    expect(registered.json().registered).toEqual(['C0FE']);
    const created = await post('/iot/developers/apps.json', headers, { name: 'from the dashboard' });
    expect(created.statusCode).toBe(200);
    expect((await get('/iot/devices/children.json?sn=C0FE', headers)).statusCode).toBe(200);
    expect((await post('/iot/devices/watch.json?sn=C0FE&id=' + (await get('/iot/developers/device.json?sn=C0FE', headers)).json().id + '&value=true', headers)).statusCode).toBe(200);
    // A same-origin GET carries neither Origin nor, from older browsers, Sec-Fetch-Site.
    expect((await get('/iot/developers/apps.json', { host: HOST, cookie })).statusCode).toBe(200);
    // With a Basic header the cookie is not looked at.
    expect((await get('/iot/developers/apps.json', { ...headers, authorization: basic(dev.email, 'Wrong123') })).statusCode).toBe(401);
  });

  it('refuses the cookie on requests from another origin, and on writes that do not prove they are same-origin', async () => {
    const dev = await createDeveloper(app, 'origin@example.com');
    const cookie = await signIn(app, dev.email);
    const refused: [string, 'GET' | 'POST', Record<string, string>][] = [
      ['a GET from another origin', 'GET', { host: HOST, cookie, origin: 'https://evil.example' }],
      ['a GET from a sibling origin (another port)', 'GET', { host: HOST, cookie, origin: `${ORIGIN}:8443` }],
      ['a GET a browser marks cross-site', 'GET', { host: HOST, cookie, 'sec-fetch-site': 'cross-site' }],
      ['a GET a browser marks same-site (a sibling subdomain)', 'GET', { host: HOST, cookie, 'sec-fetch-site': 'same-site' }],
      ['a POST without Origin or Sec-Fetch-Site', 'POST', { host: HOST, cookie }],
      ['a POST from another origin', 'POST', { host: HOST, cookie, origin: 'https://evil.example' }],
      ['a POST with Origin null (a sandboxed frame)', 'POST', { host: HOST, cookie, origin: 'null' }],
      ['a POST marked cross-site even with a matching Origin', 'POST', { host: HOST, cookie, origin: ORIGIN, 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [what, method, headers] of refused) {
      const response = await app.server.inject({ method, url: '/iot/developers/apps.json', headers, ...(method === 'POST' && { payload: { name: 'csrf' } }) });
      expect(response.statusCode, what).toBe(401);
      expect(response.json().message, what).toMatch(/only on requests from the dashboard's own origin/);
    }
    expect((await get('/iot/developers/apps.json', sameOrigin(cookie))).json()).toEqual([]);
    // Nor does the session state show through to another origin.
    expect((await get('/iot/developers/session.json', { host: HOST, cookie, origin: 'https://evil.example' })).json().signedIn).toBe(false);
    // Signing a victim in to an account of the attacker's choosing is refused too (login CSRF).
    const csrf = await post('/iot/developers/session.json', { host: HOST, origin: 'https://evil.example' }, { email: dev.email, password: PASSWORD });
    expect(csrf.statusCode).toBe(403);
    expect(csrf.cookies).toEqual([]);
  });

  it('GET session.json says whether the cookie holds a live session, and what the server offers', async () => {
    const dev = await createDeveloper(app, 'state@example.com');
    expect((await get('/iot/developers/session.json', { host: HOST })).json()).toEqual({ signedIn: false, signup: 'closed', passwordReset: false });
    const cookie = await signIn(app, dev.email);
    const state = (await get('/iot/developers/session.json', sameOrigin(cookie))).json();
    expect(state).toMatchObject({ signedIn: true, session: { email: dev.email }, signup: 'closed', passwordReset: false });
    expect(state.session.expires).toBeGreaterThan(Date.now());
  });

  it('signing out ends the session and clears the cookie', async () => {
    const dev = await createDeveloper(app, 'out@example.com');
    const account = await app.context.accounts.byEmail(dev.email);
    const cookie = await signIn(app, dev.email);
    const out = await app.server.inject({ method: 'DELETE', url: '/iot/developers/session.json', headers: sameOrigin(cookie) });
    expect(out.statusCode).toBe(200);
    expect(out.body).toBe('');
    const cleared = out.cookies.find((c) => c.name === 'snsr_session')!;
    expect(cleared.value).toBe('');
    expect(cleared.expires!.getTime()).toBeLessThan(Date.now());
    expect(await sessions(account.id)).toEqual([]);
    const after = await get('/iot/developers/apps.json', sameOrigin(cookie));
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toMatch(/session has ended/);
    // The dashboard, loaded with the dead cookie, is told the session ended (and the cookie is dropped).
    const state = await get('/iot/developers/session.json', sameOrigin(cookie));
    expect(state.json()).toMatchObject({ signedIn: false, ended: true });
    expect(state.cookies.find((c) => c.name === 'snsr_session')?.value).toBe('');
    // Without a session, signing out is still a clean 200.
    expect((await app.server.inject({ method: 'DELETE', url: '/iot/developers/session.json', headers: { host: HOST } })).statusCode).toBe(200);
  });

  it('ends a session idle for longer than SNSR_SESSION_IDLE_MINUTES, and any session at SNSR_SESSION_MAX_HOURS', async () => {
    const dev = await createDeveloper(app, 'expiry@example.com');
    const account = await app.context.accounts.byEmail(dev.email);
    const idle = await signIn(app, dev.email);
    const old = await signIn(app, dev.email);
    const db = app.context.storage.db;
    const [idleRow, oldRow] = await Promise.all([idle, old].map((c) => sessions(account.id).then((rows) => rows.find((r) => r.id_hash === sha256(c.split('=')[1]!))!)));
    // What 31 idle minutes, and 8 hours of steady use, leave in the database.
    await db.updateTable('sessions').set({ last_used_at: Date.now() - 31 * MINUTE }).where('id_hash', '=', idleRow!.id_hash).execute();
    await db.updateTable('sessions').set({ expires_at: Date.now() - 1 }).where('id_hash', '=', oldRow!.id_hash).execute();
    for (const cookie of [idle, old]) {
      const response = await get('/iot/developers/apps.json', sameOrigin(cookie));
      expect(response.statusCode).toBe(401);
      expect(response.json().message).toMatch(/session has ended/);
    }
    expect(await sessions(account.id)).toEqual([]);
  });

  it('moves the idle clock forward on use, without a write per request', async () => {
    const dev = await createDeveloper(app, 'touch@example.com');
    const account = await app.context.accounts.byEmail(dev.email);
    const cookie = await signIn(app, dev.email);
    const db = app.context.storage.db;
    const twentyMinutesAgo = Date.now() - 20 * MINUTE;
    await db.updateTable('sessions').set({ last_used_at: twentyMinutesAgo }).where('account_id', '=', account.id).execute();
    expect((await get('/iot/developers/apps.json', sameOrigin(cookie))).statusCode).toBe(200);
    const touched = (await sessions(account.id))[0]!.last_used_at;
    expect(touched).toBeGreaterThan(twentyMinutesAgo + 19 * MINUTE);
    for (let i = 0; i < 3; i++) expect((await get('/iot/developers/apps.json', sameOrigin(cookie))).statusCode).toBe(200);
    expect((await sessions(account.id))[0]!.last_used_at).toBe(touched);
  });

  it('a password change keeps the session that made it and ends every other; a wrong current password ends none', async () => {
    const dev = await createDeveloper(app, 'change@example.com');
    const mine = await signIn(app, dev.email);
    const other = await signIn(app, dev.email);
    const wrong = await post('/iot/developers/updatePassword.json', sameOrigin(mine), { currentpwd: 'Wrong123', newpwd: 'NewPass42', confirmpwd: 'NewPass42' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toMatch(/currentpwd is not the current password/);
    for (const cookie of [mine, other]) expect((await get('/iot/developers/apps.json', sameOrigin(cookie))).statusCode).toBe(200);

    const changed = await post('/iot/developers/updatePassword.json', sameOrigin(mine), { currentpwd: PASSWORD, newpwd: 'NewPass42', confirmpwd: 'NewPass42' });
    expect(changed.statusCode).toBe(200);
    expect((await get('/iot/developers/apps.json', sameOrigin(mine))).statusCode).toBe(200);
    expect((await get('/iot/developers/apps.json', sameOrigin(other))).statusCode).toBe(401);
    expect((await get('/iot/developers/apps.json', { authorization: basic(dev.email, 'NewPass42') })).statusCode).toBe(200);
    // Changed with Basic credentials, the password ends every session.
    await post('/iot/developers/updatePassword.json', { authorization: basic(dev.email, 'NewPass42') }, { currentpwd: 'NewPass42', newpwd: 'NewPass43', confirmpwd: 'NewPass43' });
    expect((await get('/iot/developers/apps.json', sameOrigin(mine))).statusCode).toBe(401);
  });
});

describe.each(dialects)('session cookies behind https (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_PUBLIC_URL: 'https://snsr.example.com' });
  });
  afterAll(() => app.close());

  it('are Secure when SNSR_PUBLIC_URL is https, and accepted from that origin', async () => {
    const dev = await createDeveloper(app, 'secure@example.com');
    const headers = { host: 'snsr.example.com', origin: 'https://snsr.example.com', 'sec-fetch-site': 'same-origin' };
    const response = await app.server.inject({ method: 'POST', url: '/iot/developers/session.json', headers, payload: { email: dev.email, password: PASSWORD } });
    expect(response.statusCode).toBe(200);
    const cookie = response.cookies[0]!;
    expect(cookie.secure).toBe(true);
    const created = await app.server.inject({ method: 'POST', url: '/iot/developers/apps.json', headers: { ...headers, cookie: `snsr_session=${cookie.value}` }, payload: { name: 'x' } });
    expect(created.statusCode).toBe(200);
  });
});
