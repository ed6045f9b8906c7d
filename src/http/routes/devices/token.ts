import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { responses } from '../../schemas.js';

const TokenQuery = Type.Object({
  sn: Type.Optional(Type.String({ description: 'module serial, any case' })),
  key: Type.Optional(Type.String({ description: 'the 8-hex key printed beside the serial, or the 16-hex PAC; any case' })),
});

/**
 * Operation 16. Clients use the whole body as the token and put it in a header, so it is bare
 * base64 text: no JSON quotes, no trailing newline.
 */
export async function tokenRoutes(app: Server, context: Context): Promise<void> {
  app.get('/crc.json', {
    schema: {
      tags: ['device'],
      summary: 'Device token for a module serial and key; send it as X-Snsr-Device-Key',
      querystring: TokenQuery,
      response: responses(Type.String({ description: 'the token, bare base64 text' }), 401, 404, 429),
    },
    handler: async (request, reply) => {
      const query = request.query as Input;
      const sn = optionalString(query, 'sn');
      const token = await context.devices.issueToken(sn, optionalString(query, 'key'), request.attemptGuard({ serial: sn }));
      return reply.type('text/plain; charset=utf-8').send(token);
    },
  });
}
