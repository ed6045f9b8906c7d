import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { input, requiredString } from '../../params.js';
import { Basic, Empty, responses } from '../../schemas.js';

const PasswordParams = Type.Object({
  email: Type.Optional(Type.String({ description: 'ignored: the authenticated account is the one changed' })),
  currentpwd: Type.Optional(Type.String()),
  newpwd: Type.Optional(Type.String()),
  confirmpwd: Type.Optional(Type.String()),
});
const GitParams = Type.Object({ email: Type.Optional(Type.String()), gitAlias: Type.Optional(Type.String()) });
const AccountSchema = Type.Object({
  email: Type.String(),
  firstname: Type.Optional(Type.String()),
  lastname: Type.Optional(Type.String()),
  gitAlias: Type.Optional(Type.String()),
  token: Type.String({ description: 'account token: send it as `Authorization: Basic <token>`' }),
  created: Type.String(),
});

/** Operations 2–4, and the account view and token regeneration the dashboard's My Account tab uses. */
export async function accountRoutes(app: Server, context: Context): Promise<void> {
  app.post('/updatePassword.json', {
    config: { audit: { action: 'password.change', failure: 'password.change.failed', detail: () => undefined } },
    schema: { tags: ['developer'], summary: 'Change the password', security: Basic, querystring: PasswordParams, body: Type.Optional(PasswordParams), response: responses(Empty, 400, 401, 404) },
    handler: async (request) => {
      const params = input(request);
      await context.accounts.updatePassword(
        request.account,
        requiredString(params, 'currentpwd'),
        requiredString(params, 'newpwd'),
        requiredString(params, 'confirmpwd'),
        // The dashboard session that changes the password stays; every other one ends.
        request.credential.kind === 'session' ? request.credential.sessionHash : undefined,
        request.attemptGuard({ account: request.account.email }),
      );
    },
  });

  app.post('/registerGit.json', {
    config: { audit: { action: 'git.alias', detail: (request) => ({ gitAlias: input(request).gitAlias }) } },
    schema: { tags: ['developer'], summary: 'Set the git alias', security: Basic, querystring: GitParams, body: Type.Optional(GitParams), response: responses(Empty, 400, 401, 404) },
    handler: async (request) => {
      const params = input(request);
      await context.accounts.registerGit(request.account, requiredString(params, 'gitAlias'));
    },
  });

  const pacs = async (request: { account: { id: number } }) => {
    const rows = await context.modules.pacs(request.account.id);
    return ['SERIAL; PAC', ...rows.map((row) => `${row.serial}; ${row.pac}`)].join('\n') + '\n';
  };
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/pacs.csv',
      config: { access: 'read' },
      schema: { tags: ['developer'], summary: 'PAC numbers of the registered modules', security: Basic, response: responses(Type.String(), 401, 404) },
      handler: async (request, reply) =>
        reply
          .type('text/plain; charset=utf-8')
          .header('content-disposition', 'attachment; filename="pacs.csv"')
          .send(await pacs(request)),
    });
  }

  app.get('/account.json', {
    // It shows the account token, a full credential: a read-only key may not see it.
    config: { access: 'write' },
    schema: { tags: ['developer'], summary: 'The account, with its token (dashboard, My Account)', security: Basic, response: responses(AccountSchema, 401, 404) },
    handler: async (request) => ({
      email: request.account.email,
      ...(request.account.gitAlias !== null && { gitAlias: request.account.gitAlias }),
      ...(request.account.firstname !== null && { firstname: request.account.firstname }),
      ...(request.account.lastname !== null && { lastname: request.account.lastname }),
      token: context.accounts.token(request.account),
      created: request.account.createdAt.toISOString(),
    }),
  });

  app.post('/token.json', {
    config: { audit: 'token.regenerate' },
    schema: { tags: ['developer'], summary: 'Regenerate the account token (the old one stops working)', security: Basic, response: responses(Type.Object({ token: Type.String() }), 401, 404) },
    handler: async (request) => ({ token: await context.accounts.regenerateToken(request.account) }),
  });
}
