import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import { normalizeSerial } from '../../../domain/modules.js';
import { notFound } from '../../../domain/errors.js';
import type { Server } from '../../server-types.js';
import { lastEventId, serveStream } from '../../sse.js';
import { deviceAccessCheck } from '../../auth/device-auth.js';
import { DeviceKey, responses } from '../../schemas.js';
import { STREAM_DESCRIPTION } from '../developers/stream.js';

const StreamQuery = Type.Object({
  sn: Type.Optional(Type.String({ description: 'module serial; optional with a device token, which names the module' })),
  device: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'only this device of the module: a child <serial>/<index>, or the module itself' })),
  lastEventId: Type.Optional(Type.String({ description: 'resume after this event id, for clients that cannot send the Last-Event-ID header' })),
});

/** One module's live events, for the device token's holder. */
export async function deviceStreamRoutes(app: Server, context: Context): Promise<void> {
  app.get('/stream', {
    schema: {
      tags: ['device'],
      summary: "Live events of the token's module (Server-Sent Events)",
      description: STREAM_DESCRIPTION,
      security: DeviceKey,
      querystring: StreamQuery,
      response: responses(Type.String({ description: 'text/event-stream' }), 400, 401, 404),
    },
    handler: async (request, reply) => {
      const { module } = request.deviceScope;
      const resumeFrom = lastEventId(request);
      if (module.accountId === null) throw notFound(`module ${module.serial} is not registered`);
      const serial = request.query.device === undefined ? undefined : normalizeSerial(request.query.device);
      if (serial !== undefined) {
        const device = await context.repositories.devices.bySerial(serial);
        if (device?.moduleSerial !== module.serial) throw notFound(`device ${serial} not found in module ${module.serial}`);
      }
      const scope = { accountId: module.accountId, modules: new Set([module.serial]), ...(serial !== undefined && { serial }) };
      await serveStream(request, reply, { ...context.streams.options(), scope, resumeFrom, stillAuthorized: deviceAccessCheck(context, request) });
    },
  });
}
