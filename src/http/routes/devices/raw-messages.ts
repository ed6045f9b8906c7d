import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { optionalInteger, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { presentRawMessage, RawMessageSchema } from '../../presenters/messages.js';
import { DeviceKey, responses } from '../../schemas.js';

const RawQuery = Type.Object({
  limit: Type.Optional(Type.String({ description: 'how many raw messages, 1 to 1000; default 20' })),
  amount: Type.Optional(Type.String({ description: 'same as limit, which wins when both are sent' })),
  before: Type.Optional(Type.String({ description: 'only uplinks before this (exclusive); epoch ms, or s when below 10^11' })),
  id: Type.Optional(Type.String()),
  sn: Type.Optional(Type.String()),
});

/** Operation 20: the module's Sigfox uplinks as received, newest first. */
export async function rawMessageRoutes(app: Server, context: Context): Promise<void> {
  app.get('/msgs/sfx/history.json', {
    schema: {
      tags: ['device'],
      summary: 'Raw Sigfox messages with one rinfo per base station, newest first',
      security: DeviceKey,
      querystring: RawQuery,
      response: responses(Type.Array(RawMessageSchema), 400, 401, 404),
    },
    handler: async (request) => {
      const query = request.query as Input;
      const raws = await context.devices.rawMessages(
        request.deviceScope,
        { id: optionalInteger(query, 'id'), sn: optionalString(query, 'sn') },
        { limit: optionalString(query, 'limit') ?? query.amount, before: query.before },
      );
      return raws.map(presentRawMessage);
    },
  });
}
