import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, PASSWORD, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import type { AttemptGuard } from '../../src/domain/attempt-guard.js';

/** A guard that records what the password-checking paths ask of it. */
function recorder(): AttemptGuard & { calls: string[] } {
  const calls: string[] = [];
  return { calls, allow: async () => void calls.push('allow'), failed: async () => void calls.push('failed') };
}

describe.each(dialects)('the password paths call the failed-authentication guard (%s)', (dialect) => {
  let app: TestApp;
  let email: string;
  let keySecret: string;
  let apiKey: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    const dev = await createDeveloper(app, 'guarded@example.com');
    email = dev.email;
    apiKey = Buffer.from(dev.token, 'base64').toString().split(':')[1]!;
    keySecret = (await app.context.apiKeys.create(await app.context.accounts.byEmail(email), { name: 'k' })).secret;
  });
  afterAll(() => app.close());

  const outcome = async (work: (guard: AttemptGuard) => Promise<unknown>) => {
    const guard = recorder();
    const result = await work(guard).then(
      () => 'ok',
      (error: { code: string }) => error.code,
    );
    return [result, guard.calls.join(',')];
  };

  it('asks before hashing a password and reports every failure; tokens and keys never touch it', async () => {
    const { accounts } = app.context;
    expect(await outcome((g) => accounts.authenticateBasic(email, PASSWORD, g))).toEqual(['ok', 'allow']);
    expect(await outcome((g) => accounts.authenticateBasic(email, 'Wrong123', g))).toEqual(['unauthorized', 'allow,failed']);
    expect(await outcome((g) => accounts.authenticateBasic('ghost@example.com', PASSWORD, g))).toEqual(['not_found', 'allow,failed']);
    expect(await outcome((g) => accounts.authenticateBasic(email, apiKey, g))).toEqual(['ok', '']);
    expect(await outcome((g) => accounts.authenticateBasic(email, keySecret, g))).toEqual(['ok', '']);
    expect(await outcome((g) => accounts.checkPassword(email, 'Wrong123', g))).toEqual(['unauthorized', 'allow,failed']);
    expect(await outcome((g) => accounts.checkPassword(email, PASSWORD, g))).toEqual(['ok', 'allow']);
    const account = await accounts.byEmail(email);
    expect(await outcome((g) => accounts.updatePassword(account, 'Wrong123', 'NewPass42', 'NewPass42', undefined, g))).toEqual(['unauthorized', 'allow,failed']);
  });

  it('a blocked guard stops the check before the password is looked at', async () => {
    const blocked: AttemptGuard = { allow: async () => Promise.reject(Object.assign(new Error('blocked'), { code: 'too_many_requests' })), failed: async () => undefined };
    await expect(app.context.accounts.checkPassword(email, PASSWORD, blocked)).rejects.toMatchObject({ code: 'too_many_requests' });
  });
});
