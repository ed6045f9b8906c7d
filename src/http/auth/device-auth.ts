import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { DeviceScope, VerifiedToken } from '../../domain/devices.js';
import { unauthorized } from '../../domain/errors.js';
import { input, optionalString } from '../params.js';
import { authenticateDeveloper, hasDeveloperCredentials } from './developer-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The module a device request may see, and how the caller proved it (device routes only). */
    deviceScope: DeviceScope;
    /**
     * On routes whose read checks the token's module itself (`tokenCheckedByRead`), the device
     * token when one is sent, its signature verified; `deviceScope` is not set then.
     */
    deviceToken?: VerifiedToken;
  }
  interface FastifyContextConfig {
    /**
     * The route reads with `DeviceService.messagesByToken`, which checks the token's module in the
     * same statement as its read: authentication only verifies the token's signature, sparing a
     * round trip to the database.
     */
    tokenCheckedByRead?: boolean;
  }
}

/** What JavaScript clients send when they have no token yet: treated as no header at all. */
const PLACEHOLDERS = new Set(['', 'undefined', 'null']);

/**
 * The token from X-Snsr-Device-Key (Node lower-cases header names, so every casing clients use
 * arrives here), trimmed of the whitespace and quotes a sloppy client may keep around it.
 */
function deviceKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-snsr-device-key'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim().replace(/^"(.*)"$/, '$1');
  return value === undefined || PLACEHOLDERS.has(value) ? undefined : value;
}

/**
 * A device token sent the oldest clients' way: `Authorization: Basic <token>`, or the 2013 Python
 * client's `Basic : <token>`. `colon` tells the second form, which no developer credential takes.
 */
function basicDeviceToken(request: FastifyRequest): { token: string; colon: boolean } | undefined {
  const match = /^Basic\s+(:\s*)?([A-Za-z0-9+/]+=*)\s*$/i.exec(request.headers.authorization ?? '');
  return match ? { token: match[2]!, colon: match[1] !== undefined } : undefined;
}

/** The device token the request sends: in X-Snsr-Device-Key, else in Authorization: Basic, told from developer credentials by its signature. */
function presentedToken(context: Context, request: FastifyRequest): string | undefined {
  const token = deviceKey(request);
  if (token !== undefined) return token;
  const basic = basicDeviceToken(request);
  return basic && (basic.colon || context.devices.isDeviceToken(basic.token)) ? basic.token : undefined;
}

/**
 * The device token when one is sent (X-Snsr-Device-Key first, else in Authorization: Basic, told
 * from developer credentials by its signature), else developer Basic credentials with `sn` naming
 * a module the developer owns (the original dashboards called device operations that way).
 */
export async function authenticateDevice(context: Context, request: FastifyRequest): Promise<DeviceScope> {
  const token = presentedToken(context, request);
  if (token !== undefined) return context.devices.byToken(token);
  if (hasDeveloperCredentials(request)) {
    const account = await authenticateDeveloper(context, request);
    return context.devices.byDeveloper(account.id, optionalString(input(request), 'sn'));
  }
  const sent = request.headers['x-snsr-device-key'];
  throw unauthorized(
    sent === undefined
      ? 'missing X-Snsr-Device-Key header: get a token from GET /iot/devices/crc.json'
      : `X-Snsr-Device-Key holds no token (${JSON.stringify(sent)}): get one from GET /iot/devices/crc.json`,
  );
}

/**
 * For what stays open after authentication (a live stream): whether the request's credential still
 * grants the same module registration. A device token is checked again as on a new request (the
 * device key rotated or the module changed hands: no longer); developer credentials must still hold
 * (password, token, API key unchanged) and the account still hold the module.
 */
export function deviceAccessCheck(context: Context, request: FastifyRequest): () => Promise<boolean> {
  const { module } = request.deviceScope;
  const token = presentedToken(context, request);
  const { account, credential } = request;
  const sameRegistration = (now: { accountId: number | null; registration: number | null } | undefined) =>
    now !== undefined && now.accountId === module.accountId && now.registration === module.registration;
  if (token !== undefined) return () => context.devices.byToken(token).then((scope) => sameRegistration(scope.module), () => false);
  return async () => (await context.accounts.stillValid(account, credential)) && sameRegistration(await context.repositories.modules.bySerial(module.serial));
}

/**
 * preValidation hook for the device routes: after the body is parsed (developer credentials may
 * name the module in a form body) but before parameters are validated, so a caller without
 * credentials learns that first.
 */
export function deviceAuth(context: Context) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = request.routeOptions.config.tokenCheckedByRead ? presentedToken(context, request) : undefined;
    if (token !== undefined) request.deviceToken = context.devices.verifyToken(token);
    else request.deviceScope = await authenticateDevice(context, request);
  };
}

/**
 * The module a device request is counted for (its quota), once authenticated: the token's module
 * and registration, so that requests with a token from before the module changed hands (refused
 * where the read checks it) do not use up the new registration's quota.
 */
export function deviceQuotaKey(request: FastifyRequest): string {
  const token = request.deviceToken?.claims;
  return token ? `device:${token.serial.toUpperCase()}:${token.registration}` : `device:${request.deviceScope.module.serial}:${request.deviceScope.module.registration}`;
}
