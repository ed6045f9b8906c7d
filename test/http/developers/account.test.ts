import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { basic, createDeveloper, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

describe.each(dialects)('account operations (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
  });
  afterAll(() => app.close());

  const post = (url: string, authorization: string | undefined, payload?: object) =>
    app.server.inject({ method: 'POST', url, headers: authorization ? { authorization } : {}, ...(payload && { payload }) });

  it('answers 401 without credentials and 404 for an unknown account', async () => {
    expect((await post('/iot/developers/updatePassword.json', undefined, {})).statusCode).toBe(401);
    expect((await post('/iot/developers/registerGit.json', undefined, {})).statusCode).toBe(401);
    expect((await post('/iot/developers/pacs.csv', undefined)).statusCode).toBe(401);
    expect((await post('/iot/developers/registerGit.json', basic('ghost@example.com', PASSWORD), { gitAlias: 'x' })).statusCode).toBe(404);
  });

  it('changes the password of the authenticated account only, whatever email says', async () => {
    const alice = await createDeveloper(app, 'alice@example.com');
    const bob = await createDeveloper(app, 'bob@example.com');
    const response = await post('/iot/developers/updatePassword.json', alice.auth, {
      email: 'bob@example.com',
      currentpwd: PASSWORD,
      newpwd: 'NewPass42',
      confirmpwd: 'NewPass42',
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect((await post('/security/authentication', alice.auth)).statusCode).toBe(401);
    expect((await post('/security/authentication', basic('alice@example.com', 'NewPass42'))).statusCode).toBe(200);
    expect((await post('/security/authentication', bob.auth)).statusCode).toBe(200);
  });

  it.each([
    [{ currentpwd: 'Wrong123', newpwd: 'NewPass42', confirmpwd: 'NewPass42' }, 401, /currentpwd/],
    [{ currentpwd: PASSWORD, newpwd: 'short', confirmpwd: 'short' }, 400, /at least 6/],
    [{ currentpwd: PASSWORD, newpwd: 'alllower1', confirmpwd: 'alllower1' }, 400, /upper-case/],
    [{ currentpwd: PASSWORD, newpwd: 'ALLUPPER1', confirmpwd: 'ALLUPPER1' }, 400, /lower-case/],
    [{ currentpwd: PASSWORD, newpwd: 'NoDigits', confirmpwd: 'NoDigits' }, 400, /digit/],
    [{ currentpwd: PASSWORD, newpwd: 'NewPass42', confirmpwd: 'NewPass43' }, 400, /confirmpwd/],
    [{ currentpwd: PASSWORD, confirmpwd: 'NewPass42' }, 400, /newpwd is required/],
  ])('refuses a password change %j with %i', async (body, status, message) => {
    const carol = await createDeveloper(app, `carol${Math.random().toString(36).slice(2)}@example.com`);
    const response = await post('/iot/developers/updatePassword.json', carol.auth, body);
    expect(response.statusCode).toBe(status);
    expect(response.json().message).toMatch(message);
  });

  it('registers a git alias from a JSON body and shows it in account.json', async () => {
    const dave = await createDeveloper(app, 'dave@example.com');
    expect((await post('/iot/developers/registerGit.json', dave.auth, { email: 'dave@example.com', gitAlias: 'dave-git' })).statusCode).toBe(200);
    const account = await app.server.inject({ method: 'GET', url: '/iot/developers/account.json', headers: { authorization: dave.auth } });
    expect(account.json()).toMatchObject({ email: 'dave@example.com', gitAlias: 'dave-git' });
    const bad = await post('/iot/developers/registerGit.json', dave.auth, { gitAlias: 'has spaces' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/gitAlias/);
  });

  it('reads parameters from the query string and from form bodies too', async () => {
    const erin = await createDeveloper(app, 'erin@example.com');
    expect((await post('/iot/developers/registerGit.json?gitAlias=erin1', erin.auth)).statusCode).toBe(200);
    const form = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/registerGit.json',
      headers: { authorization: erin.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=erin%40example.com&gitAlias=erin2',
    });
    expect(form.statusCode).toBe(200);
    expect((await app.context.accounts.byEmail('erin@example.com')).gitAlias).toBe('erin2');
  });
});
