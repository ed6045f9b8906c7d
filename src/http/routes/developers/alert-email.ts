import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { AlertEmailSetting } from '../../../domain/alert-email.js';
import type { Server } from '../../server-types.js';
import { input } from '../../params.js';
import { Basic, responses } from '../../schemas.js';

const SetParams = Type.Object({
  email: Type.Optional(Type.Union([Type.String(), Type.Boolean()], { description: 'true (or 1) to get alerts by email, false (or 0) to stop' })),
});
const Setting = Type.Object({
  email: Type.Boolean({ description: "the account's alerts are emailed to its own address" }),
  email_available: Type.Boolean({ description: 'this server can send email (its operator configured SMTP)' }),
});

const present = (setting: AlertEmailSetting) => ({ email: setting.email, email_available: setting.emailAvailable });

/** The account's choice to get its alerts by email (sent by the alert mailer, a digest per account). */
export async function alertEmailRoutes(app: Server, context: Context): Promise<void> {
  app.get('/alerts/settings.json', {
    schema: {
      tags: ['developer'],
      summary: "Whether the account's alerts are emailed to it, and whether this server can send email",
      security: Basic,
      response: responses(Setting, 401),
    },
    handler: async (request) => present(await context.alertEmail.get(request.account.id)),
  });

  app.post('/alerts/settings.json', {
    config: { audit: { action: 'alert.email', detail: (_request, answer) => ({ email: (answer as { email?: boolean } | undefined)?.email }) } },
    schema: {
      tags: ['developer'],
      summary: "Turn alert emails on or off (email=true|false); off also drops the alerts not emailed yet",
      description: 'Asking for email on a server without SMTP is a 409: nothing could be sent.',
      security: Basic,
      querystring: SetParams,
      body: Type.Optional(SetParams),
      response: responses(Setting, 400, 401, 409),
    },
    handler: async (request) => present(await context.alertEmail.set(request.account.id, input(request).email)),
  });
}
