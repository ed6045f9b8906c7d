import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { input, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { MessageSchema } from '../../presenters/messages.js';
import { Basic, responses } from '../../schemas.js';
import { SIMULATION_TYPES } from '../../../simulator/portal-frames.js';

const Simulation = Type.Object(
  {
    type: Type.Optional(Type.String({ description: `what to simulate, any case: ${SIMULATION_TYPES.join(', ')}` })),
    deviceserial: Type.Optional(Type.String({ description: 'serial of a module the caller holds' })),
    latitude: Type.Optional(Type.Unknown({ description: 'degrees (number or decimal text); the position of LOCATION_CHANGING, default 0' })),
    longitude: Type.Optional(Type.Unknown({ description: 'degrees (number or decimal text); default 0' })),
    url: Type.Optional(Type.Unknown({ description: 'sent by the portal, ignored' })),
    frequency: Type.Optional(Type.Unknown({ description: 'sent by the portal (its own timer), ignored' })),
    hits: Type.Optional(Type.Unknown({ description: 'sent by the portal, ignored' })),
  },
  { additionalProperties: true },
);

/** A number sent as a JSON number or as decimal text (a form); undefined when absent. */
function degrees(params: Input, name: string): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) throw badRequest(`${name} must be a number of degrees, got ${JSON.stringify(value)}`);
  return number;
}

/**
 * The original portal's simulator at `path` (`/iot/developers/simulator.json`, and the first
 * portal's `/mcs/simulator.json`): one simulated uplink per call, answered with its message.
 */
export async function simulatorRoutes(app: Server, context: Context, path: string): Promise<void> {
  app.post(path, {
    schema: {
      tags: path.startsWith('/mcs') ? ['legacy'] : ['developer'],
      ...(path.startsWith('/mcs') && { deprecated: true }),
      summary: 'Simulate an uplink of one of your modules: the UDM frame of the type, through ingestion, answered with its message (extra.simulated = true)',
      security: Basic,
      body: Type.Optional(Simulation),
      response: responses(MessageSchema, 400, 401, 404, 409),
    },
    handler: async (request) => {
      const params = input(request);
      return context.portalSimulator.simulate(request.account.id, {
        type: optionalString(params, 'type'),
        deviceserial: optionalString(params, 'deviceserial'),
        latitude: degrees(params, 'latitude'),
        longitude: degrees(params, 'longitude'),
      });
    },
  });
}
