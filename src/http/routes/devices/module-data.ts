import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { input, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { ChildSchema } from '../../presenters/devices.js';
import { presentChild } from '../../../wire/device.js';
import { DeviceKey, Empty, responses } from '../../schemas.js';

const SnQuery = Type.Object({ sn: Type.Optional(Type.String({ description: 'module serial; required with developer credentials' })) });
/** `sn` is optional with a device token, and then only checked: it must name the module or one of its devices. */
const sn = (params: unknown) => ({ sn: optionalString(params as Input, 'sn') });
const AnyBody = Type.Optional(Type.Unknown({ description: 'empty, {}, or a JSON or form body carrying sn' }));

/** Operations 17, 21 and 22: the module's PAC, its children, and clearing its messages. */
export async function moduleDataRoutes(app: Server, context: Context): Promise<void> {
  app.post('/pacs.csv', {
    config: { access: 'read' },
    schema: { tags: ['device'], summary: 'The module’s PAC number, as CSV', security: DeviceKey, querystring: SnQuery, body: AnyBody, response: responses(Type.String(), 400, 401, 404) },
    handler: async (request, reply) => {
      const { serial, pac } = await context.devices.pac(request.deviceScope, sn(input(request)));
      return reply
        .type('text/plain; charset=utf-8')
        .header('content-disposition', 'attachment; filename="pacs.csv"')
        .send(`SERIAL; PAC\n${serial}; ${pac}\n`);
    },
  });

  app.get('/children.json', {
    schema: {
      tags: ['device'],
      summary: 'Devices behind the module (index 1 and up), with when, raw, hr, lvl and station of each one’s newest message',
      security: DeviceKey,
      querystring: SnQuery,
      response: responses(Type.Array(ChildSchema), 400, 401, 404),
    },
    handler: async (request) => (await context.devices.children(request.deviceScope, sn(request.query))).map((child) => presentChild(child, context.config.timezone)),
  });

  app.post('/clear.json', {
    schema: { tags: ['device'], summary: 'Delete every message and raw message of the module and its children', security: DeviceKey, querystring: SnQuery, body: AnyBody, response: responses(Empty, 400, 401, 404) },
    handler: async (request) => {
      await context.devices.clear(request.deviceScope, sn(input(request)));
    },
  });
}
