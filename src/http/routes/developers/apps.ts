import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import type { AppInput } from '../../../domain/apps.js';
import { input, jsonParameter, optionalInteger, optionalString, requiredInteger, withinBatch } from '../../params.js';
import type { Input } from '../../params.js';
import { AppSchema, presentApp } from '../../presenters/apps.js';
import { Basic, Empty, ModuleItemSchema, responses, SerialsBody, RowId } from '../../schemas.js';

const AppBody = Type.Object(
  {
    id: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    callbackurl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { description: 'the app; unknown fields are ignored. Without id it is created, with id updated.' },
);
const IdParam = Type.Object({ id: Type.Optional(Type.String()) });
const AppPath = Type.Object({ idApp: RowId() });

/** The app object may arrive as the body itself, as an `app` field holding it, or as form fields. */
function appInput(params: Input): AppInput {
  let source: unknown = params;
  if (typeof params.app === 'string') source = jsonParameter(params.app, 'app', 'a JSON object');
  else if (params.app !== undefined && params.app !== null) source = params.app;
  // `app=null`, `app=5` or `app=[…]` name no app: refused rather than read as one.
  if (typeof source !== 'object' || source === null || Array.isArray(source)) throw badRequest('app must be a JSON object');
  const fields = source as Input;
  const id = optionalInteger(fields, 'id');
  const name = optionalString(fields, 'name');
  const description = optionalString(fields, 'description');
  const callbackurl = fields.callbackurl === null ? '' : optionalString(fields, 'callbackurl');
  return {
    ...(id !== undefined && { id }),
    ...(name !== undefined && { name }),
    ...(description !== undefined && { description }),
    ...(callbackurl !== undefined && { callbackurl }),
    ...(fields.callbackurl === '' && { callbackurl: '' }),
  };
}

/** `{serials: [...]}`, or the array itself. */
function serials(body: unknown, max: number): string[] {
  const list = Array.isArray(body) ? body : (body as Input | undefined)?.serials;
  if (!Array.isArray(list)) throw badRequest('serials is required: a JSON array of module serials');
  withinBatch(list, 'serials', max);
  if (!list.every((serial) => typeof serial === 'string')) throw badRequest('serials must all be strings');
  return list as string[];
}

/** Operations 5–7 and 12–14. */
export async function appRoutes(app: Server, context: Context): Promise<void> {
  const timeZone = context.config.timezone;
  const maxBatch = context.config.limits.maxBatch;

  app.get('/apps.json', {
    schema: { tags: ['developer'], summary: 'List apps', security: Basic, response: responses(Type.Array(AppSchema), 401, 404) },
    handler: async (request) => (await context.apps.list(request.account.id)).map((a) => presentApp(a, timeZone)),
  });

  app.post('/apps.json', {
    config: {
      audit: {
        action: (request) => (appInput(input(request)).id === undefined ? 'app.create' : 'app.update'),
        detail: (_request, answer) => ({ id: (answer as { id?: number } | undefined)?.id, name: (answer as { name?: string } | undefined)?.name }),
      },
    },
    schema: { tags: ['developer'], summary: 'Create an app, or update one when the object has an id', security: Basic, body: Type.Optional(AppBody), response: responses(AppSchema, 400, 401, 404) },
    handler: async (request) => presentApp(await context.apps.save(request.account.id, appInput(input(request))), timeZone),
  });

  app.delete('/apps.json', {
    config: { audit: 'app.delete' },
    schema: { tags: ['developer'], summary: 'Delete an app', security: Basic, querystring: IdParam, response: responses(Empty, 400, 401, 404) },
    handler: async (request) => {
      await context.apps.delete(request.account.id, requiredInteger(input(request), 'id'));
    },
  });

  app.post('/apps/:idApp/modules/attach.json', {
    config: { audit: { action: 'app.attach', detail: (request) => ({ app: (request.params as { idApp: number }).idApp, serials: serials(request.body, maxBatch) }) } },
    schema: { tags: ['developer'], summary: 'Attach modules to an app', security: Basic, params: AppPath, body: Type.Optional(SerialsBody), response: responses(Empty, 400, 401, 404, 413) },
    handler: async (request) => {
      await context.apps.attach(request.account.id, request.params.idApp, serials(request.body, maxBatch));
    },
  });

  app.post('/apps/:idApp/modules/detach.json', {
    config: { audit: { action: 'app.detach', detail: (request) => ({ app: (request.params as { idApp: number }).idApp, serials: serials(request.body, maxBatch) }) } },
    schema: { tags: ['developer'], summary: 'Detach modules from an app', security: Basic, params: AppPath, body: Type.Optional(SerialsBody), response: responses(Empty, 400, 401, 404, 413) },
    handler: async (request) => {
      await context.apps.detach(request.account.id, request.params.idApp, serials(request.body, maxBatch));
    },
  });

  app.get('/apps/:idApp/modules.json', {
    schema: { tags: ['developer'], summary: 'Modules attached to an app', security: Basic, params: AppPath, response: responses(Type.Array(ModuleItemSchema), 400, 401, 404) },
    handler: async (request) =>
      (await context.apps.modulesOf(request.account.id, request.params.idApp)).map((m) => ({ id: String(m.id), serial: m.serial })),
  });
}
