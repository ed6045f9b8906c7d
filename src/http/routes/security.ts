import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';
import { authenticateDeveloper, basicCredentials } from '../auth/developer-auth.js';
import { unauthorized } from '../../domain/errors.js';
import { accountToken } from '../../domain/credentials.js';
import { Basic, responses } from '../schemas.js';

/** The login this request tries, for the audit log's failed sign-ins. */
function login(request: FastifyRequest): string | undefined {
  const { login: name } = request.query as { login?: string };
  if (name) return name;
  try {
    return basicCredentials(request.headers.authorization).email;
  } catch {
    return undefined;
  }
}

/**
 * Operation 1. With Basic credentials it only says they are accepted (empty 200). The oldest
 * clients log in with `?login=&pwd=` and keep the body as their token, so that form answers a
 * token usable after `Basic ` on later calls: the account token, or for an API key's secret the
 * key's own token (a read-only key must not buy the account token).
 */
export async function securityRoutes(app: Server, context: Context): Promise<void> {
  const Query = Type.Object({ login: Type.Optional(Type.String()), pwd: Type.Optional(Type.String()) });
  const schema = {
    tags: ['developer'],
    summary: 'Check developer credentials (legacy: ?login=&pwd= answers the account token)',
    security: Basic,
    querystring: Query,
    response: responses(Type.String({ description: 'empty, or the account token for ?login=&pwd=' }), 401, 404),
  };
  async function answer(request: FastifyRequest): Promise<string> {
    const { login: email, pwd } = request.query as { login?: string; pwd?: string };
    if (email === undefined && pwd === undefined) {
      await authenticateDeveloper(context, request);
      return '';
    }
    if (!email || !pwd) throw unauthorized('login and pwd are both required');
    const { account, credential } = await context.accounts.authenticateBasic(email, pwd, request.attemptGuard({ account: email }));
    request.account = account;
    request.credential = credential;
    return credential.kind === 'key' ? accountToken(account.email, pwd) : context.accounts.token(account);
  }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/security/authentication',
      config: { access: 'read', audit: { action: 'signin', failure: 'signin.failed', subject: login, detail: () => ({ via: '/security/authentication' }) } },
      schema,
      handler: async (request, reply) => reply.type('text/plain; charset=utf-8').send(await answer(request)),
    });
  }
}
