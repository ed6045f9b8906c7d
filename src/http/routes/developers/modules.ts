import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { input, jsonParameter, optionalInteger, optionalString, requiredInteger, requiredString, withinBatch } from '../../params.js';
import type { Input } from '../../params.js';
import { DeviceSchema } from '../../presenters/devices.js';
import { presentDevice } from '../../../wire/device.js';
import { Basic, Empty, ModuleItemSchema, responses } from '../../schemas.js';

const Registration = Type.Object({ serial: Type.String(), key: Type.String() });
const RegistrationResult = Type.Object({
  registered: Type.Array(Type.String()),
  not_found: Type.Array(Type.String()),
  already_registered: Type.Array(Type.String()),
  invalid_key: Type.Array(Type.String()),
});
const ModuleParams = Type.Object({ id: Type.Optional(Type.String()), sn: Type.Optional(Type.String()) });
const RekeyParams = Type.Object({
  sn: Type.Optional(Type.String({ description: 'module serial, any case (required; `serial` is read too)' })),
  serial: Type.Optional(Type.String({ description: 'the module serial, when sn is not sent' })),
  key: Type.Optional(Type.String({ description: 'the new device key, 8 hex digits, any case; absent or empty: snsr generates one' })),
});
const NewKey = Type.Object({ serial: Type.String(), key: Type.String({ description: 'the device key now in force, 8 hex digits' }) });
const ModuleDevice = Type.Object({ ...DeviceSchema.properties, protocol: Type.String({ enum: ['UDM22', 'UDM23'] }) });

/** The array of `{serial, key}` as the body, or under `modules` (possibly as JSON text in a form). */
function registrations(body: unknown, max: number): { serial: string; key: string }[] {
  let list: unknown = body;
  if (!Array.isArray(list) && typeof list === 'object' && list !== null) list = (list as Input).modules;
  if (typeof list === 'string') list = jsonParameter(list, 'modules', 'a JSON array of {serial, key}');
  if (!Array.isArray(list)) throw badRequest('modules is required: a JSON array of {serial, key}');
  withinBatch(list, 'modules', max);
  return list.map((item: unknown, i) => {
    const { serial, key } = (item ?? {}) as Input;
    if (typeof serial !== 'string' || serial.trim() === '' || serial.length > 64) throw badRequest(`modules[${i}].serial must be a non-empty string of at most 64 characters`);
    if (typeof key !== 'string' || key.length > 64) throw badRequest(`modules[${i}].key must be a string of at most 64 characters`);
    return { serial, key };
  });
}

/** Operations 8–11. */
export async function moduleRoutes(app: Server, context: Context): Promise<void> {
  app.post('/modules.json', {
    config: { audit: { action: 'module.register', detail: (_request, answer) => answer as Record<string, unknown> } },
    schema: {
      tags: ['developer'],
      summary: 'Register modules by serial and key (or PAC)',
      security: Basic,
      body: Type.Optional(Type.Union([Type.Array(Registration), Type.Object({ modules: Type.Unknown() })])),
      response: responses(RegistrationResult, 400, 401, 404, 413),
    },
    handler: async (request) => context.modules.register(request.account.id, registrations(request.body, context.config.limits.maxBatch)),
  });

  app.delete('/modules.json', {
    config: { audit: 'module.unregister' },
    schema: { tags: ['developer'], summary: 'Unregister a module (detaches it from every app)', security: Basic, querystring: ModuleParams, response: responses(Empty, 400, 401, 404) },
    handler: async (request) => {
      const params = input(request);
      await context.modules.unregister(request.account.id, requiredInteger(params, 'id'), requiredString(params, 'sn'));
    },
  });

  app.post('/modules/key.json', {
    // The entry names the module, never the key: the log must not hand out a credential.
    config: { audit: { action: 'module.rekey', detail: (_request, answer) => ({ sn: (answer as { serial?: string } | undefined)?.serial }) } },
    schema: {
      tags: ['developer'],
      summary: 'Set a new device key on a module (given, or generated): the old key, the PAC and every device token minted before stop working',
      security: Basic,
      querystring: RekeyParams,
      body: Type.Optional(RekeyParams),
      response: responses(NewKey, 400, 401, 404),
    },
    handler: async (request) => {
      const params = input(request);
      return context.modules.rekey(request.account.id, optionalString(params, 'sn') ?? optionalString(params, 'serial') ?? '', optionalString(params, 'key'));
    },
  });

  app.get('/modules.json', {
    schema: { tags: ['developer'], summary: 'List registered modules', security: Basic, response: responses(Type.Array(ModuleItemSchema), 401, 404) },
    handler: async (request) => (await context.modules.list(request.account.id)).map((m) => ({ id: String(m.id), serial: m.serial })),
  });

  app.get('/device.json', {
    schema: { tags: ['developer'], summary: 'One registered module by sn (and id)', security: Basic, querystring: ModuleParams, response: responses(ModuleDevice, 400, 401, 404) },
    handler: async (request) => {
      const params = request.query as Input;
      const { module, device } = await context.modules.owned(request.account.id, requiredString(params, 'sn'), optionalInteger(params, 'id'));
      return { ...presentDevice(device, context.config.timezone), protocol: module.protocol };
    },
  });
}
