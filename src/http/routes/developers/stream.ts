import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { StreamScope } from '../../../storage/stream-events-repository.js';
import { normalizeSerial } from '../../../domain/modules.js';
import { notFound } from '../../../domain/errors.js';
import type { Server } from '../../server-types.js';
import { lastEventId, serveStream } from '../../sse.js';
import { sessionOf } from '../../auth/developer-auth.js';
import { Basic, responses, RowId } from '../../schemas.js';

const StreamQuery = Type.Object({
  app: Type.Optional(RowId({ minimum: 1, description: 'an app id: only the modules attached to it (when the stream opens)' })),
  serial: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'a module serial (its own and its children’s events) or a child device <serial>/<index>' })),
  lastEventId: Type.Optional(Type.String({ description: 'resume after this event id, for clients that cannot send the Last-Event-ID header' })),
});

export const STREAM_DESCRIPTION =
  'Server-Sent Events: `message` (a new message, as history returns it), `alert` (an alert raised, ended or acknowledged), ' +
  '`delivery` (developer streams: the outcome of each callback attempt, delivered, retrying or failed). ' +
  'Each event id is `<message id>-<alert id>-<delivery time>-<delivery id>`; reconnecting with `Last-Event-ID` replays up to 100 missed events of each type. ' +
  'A comment line every SNSR_STREAM_HEARTBEAT_S seconds keeps the connection alive. ' +
  "The dashboard's session cookie is accepted from its own origin (EventSource sends no headers). " +
  'A stream ends at the first heartbeat after its credential stops working: the session ends, the password or the account token changes, the API key is revoked or expires.';

/** The caller's live events: their modules only, narrowed to an app's and to one module or device. */
export async function streamRoutes(app: Server, context: Context): Promise<void> {
  app.get('/stream', {
    schema: {
      tags: ['developer'],
      summary: "Live events of the caller's modules (Server-Sent Events)",
      description: STREAM_DESCRIPTION,
      security: Basic,
      querystring: StreamQuery,
      response: responses(Type.String({ description: 'text/event-stream' }), 400, 401, 404),
    },
    handler: async (request, reply) => {
      const accountId = request.account.id;
      const resumeFrom = lastEventId(request);
      const scope: StreamScope = { accountId, deliveries: true };
      if (request.query.app !== undefined) {
        const modules = await context.apps.modulesOf(accountId, request.query.app);
        scope.modules = new Set(modules.map((module) => module.serial));
        scope.appId = request.query.app;
      }
      if (request.query.serial !== undefined) {
        const serial = normalizeSerial(request.query.serial);
        const device = await context.repositories.devices.bySerial(serial);
        const module = device && (await context.repositories.modules.bySerial(device.moduleSerial));
        if (!device || module?.accountId !== accountId) throw notFound(`device ${serial} not found`);
        scope.serial = serial;
      }
      // What opened the stream can stop working while it is open: the session ends, the password or
      // the account token changes, the API key is revoked. The stream ends with it.
      const { account, credential } = request;
      const stillAuthorized =
        credential.kind === 'session'
          ? async () => (await sessionOf(context, request))?.session.idHash === credential.sessionHash
          : () => context.accounts.stillValid(account, credential);
      await serveStream(request, reply, { ...context.streams.options(), scope, resumeFrom, stillAuthorized });
    },
  });
}
