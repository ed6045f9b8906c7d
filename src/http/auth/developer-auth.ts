import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Account } from '../../domain/types.js';
import { unauthorized } from '../../domain/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The developer account that authenticated the request (developer routes only). */
    account: Account;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `Basic base64(email:secret)`, the secret being the password or the API key. */
export function basicCredentials(header: string | undefined): { email: string; secret: string } {
  if (!header) throw unauthorized('missing Authorization header');
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Authorization must be Basic credentials');
  const encoded = match[1]!;
  if (!BASE64.test(encoded) || encoded.length % 4 === 1) throw unauthorized('Basic credentials are not base64');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw unauthorized('Basic credentials must be base64 of email:password');
  return { email: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export async function authenticateDeveloper(context: Context, request: FastifyRequest): Promise<Account> {
  const { email, secret } = basicCredentials(request.headers.authorization);
  return context.accounts.authenticate(email, secret);
}

/** onRequest hook for a subtree of developer routes. */
export function developerAuth(context: Context) {
  return async (request: FastifyRequest): Promise<void> => {
    request.account = await authenticateDeveloper(context, request);
  };
}
