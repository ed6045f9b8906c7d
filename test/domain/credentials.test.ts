import { describe, expect, it } from 'vitest';
import {
  accountToken,
  deriveApiKey,
  deviceToken,
  hashPassword,
  passwordProblem,
  readDeviceToken,
  tokenMatchesKey,
  verifyPassword,
} from '../../src/domain/credentials.js';

describe('credentials', () => {
  it('hashes passwords with scrypt and verifies only the right one', async () => {
    const hash = await hashPassword('Secret123');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('Secret123', hash)).toBe(true);
    expect(await verifyPassword('Secret124', hash)).toBe(false);
    expect(await verifyPassword('Secret123', 'garbage')).toBe(false);
    expect(await hashPassword('Secret123')).not.toBe(hash);
  });

  it('applies the password policy', () => {
    expect(passwordProblem('Ab1def')).toBeUndefined();
    expect(passwordProblem('Ab1de')).toMatch(/6/);
    expect(passwordProblem('ab1def')).toMatch(/upper/);
    expect(passwordProblem('AB1DEF')).toMatch(/lower/);
    expect(passwordProblem('Abcdef')).toMatch(/digit/);
  });

  it('derives API keys from the secret and salt, and account tokens as base64 of email:key', () => {
    const key = deriveApiKey('s', 1, 'salt');
    expect(key).toBe(deriveApiKey('s', 1, 'salt'));
    expect(key).not.toBe(deriveApiKey('s', 1, 'other'));
    expect(key).not.toBe(deriveApiKey('t', 1, 'salt'));
    expect(Buffer.from(accountToken('a@b.c', key), 'base64').toString()).toBe(`a@b.c:${key}`);
  });

  it('issues device tokens that decode to SERIAL:… and verify with the secret alone', () => {
    const token = deviceToken('secret', 'C0FE', '1A2B3C4D');
    expect(token).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(token, 'base64').toString().split(':')[0]).toBe('C0FE');
    const claims = readDeviceToken('secret', token);
    expect(claims?.serial).toBe('C0FE');
    expect(tokenMatchesKey('secret', claims!, '1a2b3c4d')).toBe(true);
    expect(tokenMatchesKey('secret', claims!, '1A2B3C4E')).toBe(false);
    expect(readDeviceToken('rotated', token)).toBeUndefined();
    const forged = Buffer.from(Buffer.from(token, 'base64').toString().replace('C0FE', 'BEEF')).toString('base64');
    expect(readDeviceToken('secret', forged)).toBeUndefined();
    expect(readDeviceToken('secret', 'not a token')).toBeUndefined();
    expect(readDeviceToken('secret', '')).toBeUndefined();
  });
});
