import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { decode, explain, normalizeFrameText, parseProtocol, present } from '../../../protocol/udm/index.js';
import type { Protocol } from '../../../protocol/udm/index.js';
import { Basic, responses } from '../../schemas.js';

const Query = Type.Object({
  frame: Type.Optional(Type.String({ description: 'the frame, hexadecimal: any case, an optional 0x prefix, spaces between bytes allowed' })),
  protocol: Type.Optional(Type.String({ description: 'UDM22 or UDM23' })),
});

const Decoded = Type.Object(
  {
    msg: Type.Optional(
      Type.Object({
        extra: Type.Object({ entry_id: Type.Integer(), frame_type: Type.String(), code: Type.String() }),
        custom: Type.Object({}, { additionalProperties: true }),
      }),
    ),
  },
  { description: 'the IoT callback structure; {} when the frame is not valid UDM' },
);

const Explained = Type.Object({
  protocol: Type.String(),
  frame: Type.String(),
  valid: Type.Boolean(),
  reason: Type.Optional(Type.String({ description: 'why the frame is invalid' })),
  fields: Type.Array(
    Type.Object({
      name: Type.String(),
      offset: Type.Integer({ description: 'byte of the first bit' }),
      bits: Type.String({ description: "e.g. 'b0.6-4': byte 0, bits 6 to 4 (7 = MSB)" }),
      bitLength: Type.Integer(),
      raw: Type.String({ description: 'the bits, MSB first' }),
      meaning: Type.String(),
    }),
  ),
  decoded: Decoded,
});

/** Missing frame or a protocol other than UDM22/UDM23: 400 naming the parameter (decision 10). */
function parameters(query: { frame?: string; protocol?: string }): { frame: string; protocol: Protocol } {
  if (query.frame === undefined) throw badRequest('frame is required: the frame to decode, in hexadecimal');
  const protocol = query.protocol === undefined ? undefined : parseProtocol(query.protocol);
  if (!protocol) throw badRequest(`protocol must be UDM22 or UDM23${query.protocol === undefined ? '' : `, got "${query.protocol}"`}`);
  return { frame: normalizeFrameText(query.frame), protocol };
}

/** Operation 15, and the field-by-field explanation the dashboard's decoder page shows. */
export async function decodeRoutes(app: Server, _context: Context): Promise<void> {
  app.get('/decode', {
    schema: { tags: ['developer'], summary: 'Decode a UDM22/UDM23 frame', security: Basic, querystring: Query, response: responses(Decoded, 400, 401, 404) },
    handler: async (request) => {
      const { frame, protocol } = parameters(request.query);
      return present(decode(frame, protocol));
    },
  });

  app.get('/decode/explain', {
    schema: { tags: ['developer'], summary: 'Explain a frame field by field', security: Basic, querystring: Query, response: responses(Explained, 400, 401, 404) },
    handler: async (request) => {
      const { frame, protocol } = parameters(request.query);
      const explained = explain(frame, protocol);
      return {
        protocol,
        frame: explained.frame,
        valid: explained.result.ok,
        ...(!explained.result.ok && { reason: explained.result.reason }),
        fields: explained.fields,
        decoded: present(explained.result),
      };
    },
  });
}
