import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { input, requiredString } from '../../params.js';
import { Basic, Empty, responses } from '../../schemas.js';

const CustomerSchema = Type.Object({
  customer: Type.Object({
    email: Type.String(),
    firstname: Type.Union([Type.String(), Type.Null()]),
    lastname: Type.Union([Type.String(), Type.Null()]),
    gitAlias: Type.Union([Type.String(), Type.Null()]),
  }),
});
const EmailParam = Type.Object({ email: Type.Optional(Type.String({ description: "the caller's own email" })) });

/** The portal's profile operations at `<base>/developers.json` (`/iot` and the legacy `/mcs`). */
export async function profileRoutes(app: Server, context: Context, base: string): Promise<void> {
  app.get(`${base}/developers.json`, {
    schema: { tags: ['self-service'], summary: 'The profile of the authenticated account', security: Basic, response: responses(CustomerSchema, 401, 404) },
    handler: async (request) => ({
      customer: {
        email: request.account.email,
        firstname: request.account.firstname,
        lastname: request.account.lastname,
        gitAlias: request.account.gitAlias,
      },
    }),
  });

  app.delete(`${base}/developers.json`, {
    schema: {
      tags: ['self-service'],
      summary: "Delete the authenticated account (email must be its own): its modules are unregistered, its apps, keys and log deleted",
      security: Basic,
      querystring: EmailParam,
      response: responses(Empty, 400, 401, 403, 404),
    },
    handler: async (request, reply) => {
      await context.selfService.deleteAccount(request.account, requiredString(input(request), 'email'));
      request.log.info({ account: request.account.id }, 'account deleted by its owner');
      reply.clearSessionCookie();
    },
  });
}
