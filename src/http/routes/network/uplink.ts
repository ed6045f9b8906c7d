import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { unauthorized } from '../../../domain/errors.js';
import type { IngestResult, Uplink } from '../../../ingest/uplink.js';
import { errorBody } from '../../error-rendering.js';
import { responses } from '../../schemas.js';

/** The Sigfox callback variables snsr reads; a body template may send more, which are ignored. */
export const UplinkBody = Type.Object(
  {
    device: Type.String({ pattern: '^[0-9A-Fa-f]{1,8}$', description: 'Sigfox device id, hex: the module serial (any case)' }),
    time: Type.Integer({ minimum: 0, maximum: 4294967295, description: 'network reception time, epoch seconds' }),
    data: Type.String({ pattern: '^([0-9A-Fa-f]{2}){0,12}$', description: 'the frame: hex, at most 12 bytes' }),
    seqNumber: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: "Sigfox's sequence number of the uplink" })),
    station: Type.Optional(Type.String({ maxLength: 32, description: 'base station that heard this copy' })),
    rssi: Type.Optional(Type.Number({ description: 'dBm' })),
    snr: Type.Optional(Type.Number({ description: 'dB' })),
    avgSnr: Type.Optional(Type.Number()),
    lat: Type.Optional(Type.Number()),
    lng: Type.Optional(Type.Number()),
    duplicate: Type.Optional(Type.Boolean({ description: 'another station already reported this uplink' })),
    ack: Type.Optional(Type.Boolean({ description: 'the module waits for a downlink' })),
  },
  { additionalProperties: true },
);
type UplinkBodyType = Static<typeof UplinkBody>;

const Received = Type.Object({
  uplink: Type.String({ enum: ['new', 'duplicate', 'replay'], description: 'first copy, another station, or a callback already received' }),
  frame: Type.Optional(Type.String({ enum: ['message', 'repetition', 'invalid'], description: 'what a new uplink became' })),
  reason: Type.Optional(Type.String({ description: 'why the frame is not valid UDM' })),
  device: Type.Optional(Type.String({ description: 'serial of the device the message concerns' })),
  type: Type.Optional(Type.String({ description: 'message type, e.g. event:templow' })),
});
const Downlink = Type.Record(Type.String(), Type.Object({ downlinkData: Type.String({ pattern: '^[0-9A-Fa-f]{16}$' }) }), {
  description: "Sigfox's downlink answer to an uplink with ack: true, keyed by the device id",
});
const ErrorRef = Type.Unsafe<{ statusCode: number; error: string; message: string }>({ $ref: 'Error#' });

/** A downlink is exactly 8 bytes; anything else in the bidir value is not sent to a device. */
const DOWNLINK = /^[0-9A-Fa-f]{16}$/;

const digest = (text: string) => createHash('sha256').update(text).digest();

/** `Authorization: Bearer <SNSR_NETWORK_TOKEN>`; while the token is unset every uplink is refused. */
export function networkAuth(token: string | undefined) {
  const expected = token === undefined ? undefined : digest(token);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected === undefined) {
      return reply.code(503).send(errorBody(503, 'uplinks are refused: SNSR_NETWORK_TOKEN is not set on this server'));
    }
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('Authorization: Bearer <network token> is required');
    if (!timingSafeEqual(digest(match[1]), expected)) throw unauthorized('the network token is invalid');
  };
}

/**
 * Sigfox leaves a variable it does not have empty (`rssi=` in a form, `"lat": null` in a JSON
 * template): such a parameter is absent, not malformed. An empty `data` is an empty payload.
 */
async function dropEmptyVariables(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  for (const [name, value] of Object.entries(body)) {
    if (value === null || (value === '' && name !== 'data')) delete (body as Record<string, unknown>)[name];
  }
}

function uplinkOf(body: UplinkBodyType): Uplink {
  const { device, time, data, seqNumber, station, rssi, snr, avgSnr, lat, lng, duplicate, ack } = body;
  return { device, time, data, seqNumber, station, rssi, snr, avgSnr, lat, lng, duplicate, ack };
}

function received(result: IngestResult) {
  return {
    uplink: result.uplink,
    ...(result.frame && { frame: result.frame }),
    ...(result.reason && { reason: result.reason }),
    ...(result.device && { device: result.device }),
    ...(result.type && { type: result.type }),
  };
}

/** POST /network/sigfox/uplink: the Sigfox network's callback, JSON or form-encoded. */
export async function uplinkRoutes(app: Server, context: Context): Promise<void> {
  app.addHook('onRequest', networkAuth(context.config.networkToken));

  app.post('/uplink', {
    schema: {
      tags: ['network'],
      summary: 'Receive an uplink from the Sigfox network (one callback per base station that heard it)',
      security: [{ network: [] }],
      body: UplinkBody,
      response: {
        ...responses(Type.Union([Received, Downlink]), 400, 401, 404),
        204: Type.Null({ description: 'ack was requested but the module has no bidir value' }),
        503: ErrorRef,
      },
    },
    preValidation: dropEmptyVariables,
    handler: async (request, reply) => {
      const result = await context.ingest.receive(uplinkOf(request.body));
      if (!request.body.ack) return received(result);
      const value = result.downlink;
      if (value && DOWNLINK.test(value)) return { [request.body.device]: { downlinkData: value } };
      if (value) request.log.warn({ module: result.module, bidirval: value }, 'bidir value is not 16 hex digits; no downlink sent');
      return reply.code(204).send(null);
    },
  });
}
