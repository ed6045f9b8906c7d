import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** The spec's policy: at least 6 characters with upper case, lower case and a digit. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 6) return 'must be at least 6 characters long';
  if (!/[A-Z]/.test(password)) return 'must contain an upper-case letter';
  if (!/[a-z]/.test(password)) return 'must contain a lower-case letter';
  if (!/[0-9]/.test(password)) return 'must contain a digit';
  return undefined;
}

/** `scrypt$N$r$p$salt$hash`, base64 parts: parameters travel with the hash so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

export const randomToken = (bytes = 16): string => randomBytes(bytes).toString('hex');

/**
 * What the database keeps of a random secret (session id, API key, emailed link): its SHA-256.
 * The secrets carry 192 bits or more, so a fast hash is enough; scrypt would only slow every request.
 */
export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A random secret for a cookie or a link: 256 bits, URL-safe. */
export const randomSecret = (): string => randomBytes(32).toString('base64url');

/** API key secrets start with this, so they are recognisable in a config file or a leak scanner. */
export const API_KEY_PREFIX = 'snsr_';

/** A new API key secret (`snsr_` and 192 random bits) and the prefix shown to tell keys apart. */
export function newApiKeySecret(): { secret: string; prefix: string } {
  const secret = `${API_KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
  return { secret, prefix: secret.slice(0, API_KEY_PREFIX.length + 8) };
}

function hmac(secret: string, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest();
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * An account's API key is derived from the server secret and a random per-account salt, so the
 * database holds nothing that works as a credential on its own, yet the dashboard can show the key
 * at any time. A new salt regenerates it.
 */
export function deriveApiKey(secret: string, accountId: number, salt: string): string {
  return hmac(secret, `account:${accountId}:${salt}`).toString('base64url');
}

/** The account token sent after `Basic `: base64 of `email:apikey`, like a Basic credential. */
export function accountToken(email: string, apiKey: string): string {
  return Buffer.from(`${email}:${apiKey}`).toString('base64');
}

/** Short fingerprint of a module key: a token stops working once the module is re-keyed. */
function keyFingerprint(secret: string, key: string): string {
  return hmac(secret, `module-key:${key.toUpperCase()}`).subarray(0, 6).toString('base64url');
}

const sign = (secret: string, signed: string): string => hmac(secret, `device:${signed}`).subarray(0, 18).toString('base64url');

/**
 * Device token: base64 of `<SERIAL>:<registration>:<key fingerprint>.<signature>`. The signature
 * covers everything before it, so it is checked with the secret alone; the registration and the
 * fingerprint are compared with the module's current ones when the module is loaded for the request,
 * so a change of hands or a new device key ends the token.
 */
export function deviceToken(secret: string, serial: string, registration: number, key: string): string {
  const signed = `${serial}:${registration}:${keyFingerprint(secret, key)}`;
  return Buffer.from(`${signed}.${sign(secret, signed)}`).toString('base64');
}

export interface DeviceTokenClaims {
  serial: string;
  registration: number;
  fingerprint: string;
}

/**
 * Checks the signature only; undefined when the token is malformed or forged. Tokens issued before
 * registrations were counted (`<SERIAL>:<fingerprint>.<signature>`) stand for registration 0, the
 * one every module had then, so devices in the field keep working until their module changes hands.
 */
export function readDeviceToken(secret: string, token: string): DeviceTokenClaims | undefined {
  if (!/^[A-Za-z0-9+/]+=*$/.test(token)) return undefined;
  const text = Buffer.from(token, 'base64').toString('utf8');
  const match = /^([^:]+):(?:(\d{1,9}):)?([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{24})$/.exec(text);
  if (!match) return undefined;
  const [, serial, registration, fingerprint, signature] = match as unknown as [string, string, string | undefined, string, string];
  const signed = registration === undefined ? `${serial}:${fingerprint}` : `${serial}:${registration}:${fingerprint}`;
  return safeEqual(signature, sign(secret, signed)) ? { serial, registration: Number(registration ?? 0), fingerprint } : undefined;
}

export function tokenMatchesKey(secret: string, claims: DeviceTokenClaims, key: string): boolean {
  return safeEqual(claims.fingerprint, keyFingerprint(secret, key));
}
