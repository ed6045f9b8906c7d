import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Account, Authenticated, Credential, Session } from '../../domain/types.js';
import { forbidden, unauthorized } from '../../domain/errors.js';
import { SESSION_COOKIE, fromOwnOrigin } from '../plugins/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The developer account that authenticated the request (developer routes only). */
    account: Account;
    /** How it authenticated: the audit log names it, an API key's scope limits it. */
    credential: Credential;
  }
  interface FastifyContextConfig {
    /**
     * What a route does, for read-only API keys: `read` lets them call it. By default GET and
     * HEAD read and every other method writes; a POST that only reads (pacs.csv) says `read`,
     * a GET that hands out a full credential (account.json) says `write`.
     */
    access?: 'read' | 'write';
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `Basic base64(email:secret)`, the secret being the password or an API key. */
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

/** Whether the request carries developer credentials at all: a Basic header or the session cookie. */
export const hasDeveloperCredentials = (request: FastifyRequest): boolean =>
  request.headers.authorization !== undefined || request.cookies[SESSION_COOKIE] !== undefined;

/** The dashboard session the cookie names, if the cookie may be used on this request. */
export async function sessionOf(context: Context, request: FastifyRequest): Promise<{ account: Account; session: Session } | undefined> {
  const id = request.cookies[SESSION_COOKIE];
  if (id === undefined || !fromOwnOrigin(request, context.config.publicUrl)) return undefined;
  return context.sessions.resolve(id);
}

/**
 * Basic credentials when the request has an Authorization header (API clients, old and new), else
 * the dashboard's session cookie. Sets `request.account` and `request.credential`, and refuses a
 * read-only API key on a route that writes.
 */
export async function authenticateDeveloper(context: Context, request: FastifyRequest): Promise<Account> {
  let authenticated: Authenticated | undefined;
  if (request.headers.authorization !== undefined || request.cookies[SESSION_COOKIE] === undefined) {
    const { email, secret } = basicCredentials(request.headers.authorization);
    authenticated = await context.accounts.authenticateBasic(email, secret, request.attemptGuard({ account: email }));
  } else {
    const live = await sessionOf(context, request);
    if (live) authenticated = { account: live.account, credential: { kind: 'session', sessionHash: live.session.idHash } };
    else {
      throw unauthorized(
        fromOwnOrigin(request, context.config.publicUrl)
          ? 'the dashboard session has ended: sign in again'
          : "the session cookie is accepted only on requests from the dashboard's own origin: other clients send Authorization: Basic",
      );
    }
  }
  request.account = authenticated.account;
  request.credential = authenticated.credential;
  const { credential } = authenticated;
  if (credential.kind === 'key' && credential.scope === 'read' && writes(request)) {
    throw forbidden(`the API key "${credential.name}" is read-only: ${request.method} ${request.routeOptions.url ?? request.url} needs a key with full scope`);
  }
  return authenticated.account;
}

function writes(request: FastifyRequest): boolean {
  const access = request.routeOptions.config.access;
  return access ? access === 'write' : request.method !== 'GET' && request.method !== 'HEAD';
}

/** onRequest hook for a subtree of developer routes. */
export function developerAuth(context: Context) {
  return async (request: FastifyRequest): Promise<void> => {
    await authenticateDeveloper(context, request);
  };
}
