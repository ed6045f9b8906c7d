import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';

export const SESSION_COOKIE = 'snsr_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request carrying the session cookie comes from the dashboard's own origin. CORS echoes
 * any Origin with credentials (old cross-origin dashboards use Basic auth), so the cookie must be
 * refused on everything a browser sends from elsewhere: `Sec-Fetch-Site` other than `same-origin`,
 * an `Origin` other than this server's; and a state-changing request must prove it is same-origin
 * with one of the two. `SameSite=Strict` alone would still let a sibling origin of the same site
 * (another port, another subdomain) use it.
 */
export function fromOwnOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const site = header(request, 'sec-fetch-site');
  const origin = header(request, 'origin');
  const safe = SAFE_METHODS.has(request.method);
  if (site !== undefined && site !== 'same-origin' && !(safe && site === 'none')) return false;
  if (origin !== undefined) {
    const own = [`${request.protocol}://${request.host}`.toLowerCase()];
    if (publicUrl) own.push(new URL(publicUrl).origin.toLowerCase());
    if (!own.includes(origin.toLowerCase())) return false;
  }
  return safe || site === 'same-origin' || origin !== undefined;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

declare module 'fastify' {
  interface FastifyReply {
    /** Sets the session cookie: HttpOnly, SameSite=Strict, Secure over https. */
    setSessionCookie(id: string): FastifyReply;
    clearSessionCookie(): FastifyReply;
  }
}

/**
 * Cookies for dashboard sessions (`@fastify/cookie`). The cookie has no Max-Age: it ends with the
 * browser, and the server ends the session itself on sign-out, idle time and absolute expiry.
 */
export async function sessionsPlugin(app: Server, context: Context): Promise<void> {
  await app.register(cookie);
  const httpsPublicUrl = context.config.publicUrl?.startsWith('https:') ?? false;
  const options = (request: FastifyRequest) => ({
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: httpsPublicUrl || request.protocol === 'https',
  });
  app.decorateReply('setSessionCookie', function (this: FastifyReply, id: string) {
    return this.setCookie(SESSION_COOKIE, id, options(this.request));
  });
  app.decorateReply('clearSessionCookie', function (this: FastifyReply) {
    return this.clearCookie(SESSION_COOKIE, options(this.request));
  });
}
