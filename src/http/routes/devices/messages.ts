import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { PageParameters } from '../../../domain/devices.js';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { optionalInteger, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { MessageSchema } from '../../presenters/messages.js';
import { storedPageJson } from '../../../wire/message.js';
import { DeviceKey, responses } from '../../schemas.js';

const selector = {
  id: Type.Optional(Type.String({ description: 'only this device’s messages (a device of the module)' })),
  sn: Type.Optional(Type.String({ description: 'module serial (optional with a device token), or a child’s serial' })),
};
const amount = Type.Optional(Type.String({ description: 'how many messages, 1 to 1000; default 20' }));
const bound = (what: string) =>
  Type.Optional(Type.String({ description: `${what} (exclusive); epoch ms, or s when below 10^11` }));

/** Sent as text already serialized (see `storedPageJson`); the response schema documents it. */
const JSON_TYPE = 'application/json; charset=utf-8';

const HistoryQuery = Type.Object({ amount, until: bound('only messages received before this'), ...selector });
const RecentsQuery = Type.Object({ amount, after: bound('only messages received after this'), ...selector });

/**
 * Operations 18 and 19: the module's decoded messages, newest first. `recentsAliases` are more
 * paths answering like recents (the first portal's `/mcs/devices/msgs.json`).
 */
export async function messageRoutes(app: Server, context: Context, recentsAliases: string[] = []): Promise<void> {
  const target = (query: Input) => ({ id: optionalInteger(query, 'id'), sn: optionalString(query, 'sn') });
  /** The page as text; with a device token, its module is checked by the same statement that reads it. */
  const page = async (request: FastifyRequest, bounds: PageParameters): Promise<string> => {
    const selector = target(request.query as Input);
    const messages = request.deviceToken
      ? await context.devices.messagesByToken(request.deviceToken, selector, bounds)
      : await context.devices.messages(request.deviceScope, selector, bounds);
    return storedPageJson(messages);
  };

  app.get('/msgs/history.json', {
    schema: {
      tags: ['device'],
      summary: 'Messages, newest first; page back with until = the oldest when shown',
      security: DeviceKey,
      querystring: HistoryQuery,
      response: responses(Type.Array(MessageSchema), 400, 401, 404),
    },
    config: { tokenCheckedByRead: true },
    handler: async (request, reply) => {
      const query = request.query as Input;
      return reply.type(JSON_TYPE).send(await page(request, { amount: query.amount, until: query.until }));
    },
  });

  for (const path of ['/msgs/recents.json', ...recentsAliases]) app.get(path, {
    schema: {
      tags: ['device'],
      summary: 'Messages newer than after (the newest when shown), newest first; the newest without after',
      security: DeviceKey,
      querystring: RecentsQuery,
      response: responses(Type.Array(MessageSchema), 400, 401, 404),
    },
    config: { tokenCheckedByRead: true },
    handler: async (request, reply) => {
      const query = request.query as Input;
      return reply.type(JSON_TYPE).send(await page(request, { amount: query.amount, after: query.after }));
    },
  });
}
