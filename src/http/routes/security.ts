import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';
import { authenticateDeveloper } from '../auth/developer-auth.js';
import { unauthorized } from '../../domain/errors.js';
import { Basic, responses } from '../schemas.js';

/**
 * Operation 1. With Basic credentials it only says they are accepted (empty 200). The oldest
 * clients log in with `?login=&pwd=` and keep the body as their token, so that form answers the
 * account token, usable after `Basic ` on later calls.
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
    const { login, pwd } = request.query as { login?: string; pwd?: string };
    if (login === undefined && pwd === undefined) {
      await authenticateDeveloper(context, request);
      return '';
    }
    if (!login || !pwd) throw unauthorized('login and pwd are both required');
    return context.accounts.token(await context.accounts.authenticate(login, pwd));
  }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/security/authentication',
      schema,
      handler: async (request, reply) => reply.type('text/plain; charset=utf-8').send(await answer(request)),
    });
  }
}
