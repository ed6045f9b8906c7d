import { createHmac } from 'node:crypto';
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
    const token = deviceToken('secret', 'C0FE', 3, '1A2B3C4D');
    expect(token).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(token, 'base64').toString().split(':')[0]).toBe('C0FE');
    const claims = readDeviceToken('secret', token);
    expect(claims?.serial).toBe('C0FE');
    expect(claims?.registration).toBe(3);
    expect(tokenMatchesKey('secret', claims!, '1a2b3c4d')).toBe(true);
    expect(tokenMatchesKey('secret', claims!, '1A2B3C4E')).toBe(false);
    expect(readDeviceToken('rotated', token)).toBeUndefined();
    const forged = Buffer.from(Buffer.from(token, 'base64').toString().replace('C0FE', 'BEEF')).toString('base64');
    expect(readDeviceToken('secret', forged)).toBeUndefined();
    expect(readDeviceToken('secret', 'not a token')).toBeUndefined();
    expect(readDeviceToken('secret', '')).toBeUndefined();
  });

  it('signs the registration: a token cannot be moved to a later registration of its module', () => {
    const text = Buffer.from(deviceToken('secret', 'C0FE', 3, '1A2B3C4D'), 'base64').toString();
    const moved = Buffer.from(text.replace(':3:', ':4:')).toString('base64');
    expect(readDeviceToken('secret', moved)).toBeUndefined();
    const dropped = Buffer.from(text.replace(':3:', ':')).toString('base64');
    expect(readDeviceToken('secret', dropped)).toBeUndefined();
  });

  it('reads tokens issued before registrations were counted as registration 0', () => {
    // The earlier form: SERIAL:<fingerprint>.<signature>, the signature over device:SERIAL:<fingerprint>.
    const fingerprint = createHmac('sha256', 'secret').update('module-key:1A2B3C4D').digest().subarray(0, 6).toString('base64url');
    const signature = createHmac('sha256', 'secret').update(`device:C0FE:${fingerprint}`).digest().subarray(0, 18).toString('base64url');
    const legacy = Buffer.from(`C0FE:${fingerprint}.${signature}`).toString('base64');
    const claims = readDeviceToken('secret', legacy);
    expect(claims).toEqual({ serial: 'C0FE', registration: 0, fingerprint });
    expect(tokenMatchesKey('secret', claims!, '1A2B3C4D')).toBe(true);
  });
});
