import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Flag } from '../../../domain/devices.js';
import type { Server } from '../../server-types.js';
import { input, optionalInteger, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { DeviceKey, Empty, responses } from '../../schemas.js';

const FLAGS: Record<Flag, string> = {
  status: 'functional status: an identifier such as ALARM (A-Z, 0-9, _); empty resets it to UNDEFINED',
  active: 'active flag: true, false, 1 or 0',
  watch: 'monitoring flag (watched): true, false, 1 or 0',
  bidirval: 'downlink answered to the module: 16 hex digits (8 bytes); empty clears it',
};

const flagParams = (description: string) =>
  Type.Object({
    id: Type.Optional(Type.String({ description: 'device id (required)' })),
    sn: Type.Optional(Type.String({ description: 'device serial; optional, checked when sent' })),
    value: Type.Optional(Type.String({ description })),
  });

/** The value as sent: absent is not the same as empty, which clears bidirval and resets status. */
function rawValue(params: Input): string | undefined {
  const value = params.value;
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : String(value);
}

/** Operations 23–26. Old clients put id, sn and value in the query string with an empty body. */
export async function flagRoutes(app: Server, context: Context): Promise<void> {
  for (const [flag, description] of Object.entries(FLAGS) as [Flag, string][]) {
    const params = flagParams(description);
    app.post(`/${flag}.json`, {
      schema: { tags: ['device'], summary: `Set a device’s ${flag}`, security: DeviceKey, querystring: params, body: Type.Optional(params), response: responses(Empty, 400, 401, 404) },
      handler: async (request) => {
        const values = input(request);
        await context.devices.setFlag(request.deviceScope, flag, { id: optionalInteger(values, 'id'), sn: optionalString(values, 'sn') }, rawValue(values));
      },
    });
  }
}
