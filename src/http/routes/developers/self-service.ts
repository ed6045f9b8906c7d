import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { input, optionalString, requiredString } from '../../params.js';
import { Empty, responses } from '../../schemas.js';

const SignupParams = Type.Object({
  email: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  repassword: Type.Optional(Type.String({ description: 'the password again' })),
  firstname: Type.Optional(Type.String()),
  lastname: Type.Optional(Type.String()),
});
const ForgotParams = Type.Object({ email: Type.Optional(Type.String()) });
const ResetParams = Type.Object({
  token: Type.Optional(Type.String({ description: 'from the emailed link, after #token=' })),
  password: Type.Optional(Type.String()),
  repassword: Type.Optional(Type.String()),
});
const UuidPath = Type.Object({ uuid: Type.String() });

/**
 * `POST register.json`, as the portal sends it. It is open (no auth hook): the portal also sends a
 * Basic header built from the account being created, which must not get in the way.
 */
export async function registerRoute(app: Server, context: Context): Promise<void> {
  app.post('/register.json', {
    schema: {
      tags: ['self-service'],
      summary: 'Sign up (SNSR_SIGNUP=open): emails an activation link; the same answer whether or not the address has an account',
      querystring: SignupParams,
      body: Type.Optional(SignupParams),
      response: responses(Empty, 400, 403),
    },
    handler: async (request) => {
      const params = input(request);
      await context.selfService.register({
        email: requiredString(params, 'email'),
        password: requiredString(params, 'password'),
        repassword: requiredString(params, 'repassword'),
        firstname: optionalString(params, 'firstname'),
        lastname: optionalString(params, 'lastname'),
      });
    },
  });
}

/** Activation and password reset by emailed link; no credentials, the link is the proof. */
export async function selfServiceRoutes(app: Server, context: Context): Promise<void> {
  await registerRoute(app, context);

  app.post('/activatation/:uuid', {
    // The link's uuid stays out of the log: it was a secret until a moment ago.
    config: { audit: { action: 'account.activate', detail: () => undefined } },
    schema: {
      tags: ['self-service'],
      summary: "Activate a signed-up account (the path's spelling is the portal's)",
      params: UuidPath,
      response: responses(Empty, 404, 409, 410),
    },
    handler: async (request) => {
      request.account = await context.selfService.activate(request.params.uuid);
      request.credential = { kind: 'link' };
    },
  });

  app.post('/password/forgot.json', {
    config: { audit: { action: 'password.reset.request', detail: () => undefined } },
    schema: {
      tags: ['self-service'],
      summary: 'Email a password reset link; the same answer whether or not the address has an account',
      querystring: ForgotParams,
      body: Type.Optional(ForgotParams),
      response: responses(Empty, 400, 403),
    },
    handler: async (request) => {
      const account = await context.selfService.requestPasswordReset(requiredString(input(request), 'email'));
      if (account) request.account = account;
    },
  });

  app.post('/password/reset.json', {
    config: { audit: { action: 'password.reset', detail: () => undefined } },
    schema: {
      tags: ['self-service'],
      summary: 'Set a new password with an emailed link (single use); ends every session',
      querystring: ResetParams,
      body: Type.Optional(ResetParams),
      response: responses(Empty, 400, 403, 404, 410),
    },
    handler: async (request) => {
      const params = input(request);
      request.account = await context.selfService.resetPassword(
        requiredString(params, 'token'),
        requiredString(params, 'password'),
        requiredString(params, 'repassword'),
      );
      request.credential = { kind: 'link' };
    },
  });
}
