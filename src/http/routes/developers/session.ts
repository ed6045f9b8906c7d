import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import type { Session } from '../../../domain/types.js';
import { forbidden } from '../../../domain/errors.js';
import { sessionOf } from '../../auth/developer-auth.js';
import { SESSION_COOKIE, fromOwnOrigin } from '../../plugins/sessions.js';
import { input, optionalString, requiredString } from '../../params.js';
import { Empty, responses } from '../../schemas.js';

const SignInParams = Type.Object({ email: Type.Optional(Type.String()), password: Type.Optional(Type.String()) });
const SessionSchema = Type.Object({
  email: Type.String(),
  created: Type.Integer({ description: 'sign-in time, epoch ms' }),
  expires: Type.Integer({ description: 'when the session ends if unused (idle timeout or absolute expiry), epoch ms' }),
});
const StateSchema = Type.Object({
  signedIn: Type.Boolean(),
  ended: Type.Optional(Type.Boolean({ description: 'true when the request carried a session cookie that no longer holds a session (it is cleared)' })),
  session: Type.Optional(SessionSchema),
  signup: Type.String({ enum: ['open', 'closed'], description: 'whether POST register.json creates accounts' }),
  passwordReset: Type.Boolean({ description: 'whether password/forgot.json emails reset links' }),
});

const email = (request: FastifyRequest) => optionalString(input(request), 'email');

/**
 * Dashboard sessions: sign in with email and password (a cookie, never a token in the page), see
 * whether the cookie still holds a session, sign out. Open routes: they authenticate themselves.
 */
export async function sessionRoutes(app: Server, context: Context): Promise<void> {
  const present = (account: { email: string }, session: Session) => ({
    email: account.email,
    created: session.created.getTime(),
    expires: context.sessions.expiry(session).getTime(),
  });

  app.post('/session.json', {
    config: { audit: { action: 'signin', failure: 'signin.failed', subject: email } },
    schema: {
      tags: ['dashboard'],
      summary: 'Sign in to the dashboard: sets the HttpOnly session cookie',
      querystring: SignInParams,
      body: Type.Optional(SignInParams),
      response: responses(SessionSchema, 400, 401, 403, 404),
    },
    handler: async (request, reply) => {
      // Signing someone into an account of the attacker's choosing is an attack too (login CSRF).
      const site = request.headers['sec-fetch-site'];
      if ((request.headers.origin !== undefined || (site !== undefined && site !== 'none')) && !fromOwnOrigin(request, context.config.publicUrl)) {
        throw forbidden("sign-in is accepted only from the dashboard's own origin");
      }
      const params = input(request);
      const email = requiredString(params, 'email');
      const account = await context.accounts.checkPassword(email, requiredString(params, 'password'), request.attemptGuard({ account: email }));
      request.account = account;
      request.credential = { kind: 'password' };
      const { id, session } = await context.sessions.start(account, { address: request.ip, userAgent: request.headers['user-agent'] ?? null });
      reply.setSessionCookie(id);
      return present(account, session);
    },
  });

  app.get('/session.json', {
    schema: { tags: ['dashboard'], summary: "Whether the request's cookie holds a live session, and what this server offers", response: responses(StateSchema) },
    handler: async (request, reply) => {
      const live = await sessionOf(context, request);
      // A cookie the server no longer honours (signed out elsewhere, idle, password changed):
      // say so, so the dashboard can tell the user why they see the sign-in page, and drop it.
      const ended = !live && request.cookies[SESSION_COOKIE] !== undefined;
      if (ended) reply.clearSessionCookie();
      return {
        signedIn: live !== undefined,
        ...(ended && { ended }),
        ...(live && { session: present(live.account, live.session) }),
        signup: context.selfService.signupOpen ? 'open' : 'closed',
        passwordReset: context.selfService.passwordResetAvailable,
      };
    },
  });

  app.delete('/session.json', {
    config: { audit: 'signout' },
    schema: { tags: ['dashboard'], summary: 'Sign out: ends the session and clears its cookie', response: responses(Empty) },
    handler: async (request, reply) => {
      const live = await sessionOf(context, request);
      if (live) {
        await context.sessions.end(live.session.idHash);
        request.account = live.account;
        request.credential = { kind: 'session', sessionHash: live.session.idHash };
      }
      reply.clearSessionCookie();
    },
  });
}
