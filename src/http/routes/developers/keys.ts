import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import type { ApiKey } from '../../../domain/types.js';
import { badRequest } from '../../../domain/errors.js';
import { input, optionalString, requiredInteger, requiredString } from '../../params.js';
import type { Input } from '../../params.js';
import { Basic, responses } from '../../schemas.js';

const KeySchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: "the secret's first characters, to tell keys apart" }),
  scope: Type.String({ enum: ['read', 'full'], description: 'read: GET only (and pacs.csv); full: everything the account token can do' }),
  created: Type.Integer({ description: 'epoch ms' }),
  expires: Type.Union([Type.Integer(), Type.Null()], { description: 'epoch ms; null: never' }),
  last_used: Type.Union([Type.Integer(), Type.Null()], { description: 'epoch ms, to the minute; null: never used' }),
});
const CreatedKeySchema = Type.Object({
  ...KeySchema.properties,
  secret: Type.String({ description: 'shown once: snsr keeps only its hash' }),
  token: Type.String({ description: 'send it as `Authorization: Basic <token>`, like the account token (base64 of email:secret)' }),
});
const KeyParams = Type.Object({
  name: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: 'read or full (default)' })),
  expires: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'epoch ms (or s), or an ISO 8601 date; absent: never' })),
});
const IdParam = Type.Object({ id: Type.Optional(Type.String()) });

export const presentKey = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  scope: key.scope,
  created: key.created.getTime(),
  expires: key.expires?.getTime() ?? null,
  last_used: key.lastUsed?.getTime() ?? null,
});

/** `expires` as epoch ms or s (values below 10^11 are seconds, as everywhere in the API), or an ISO date. */
function expiry(params: Input): Date | null {
  const raw = params.expires;
  if (raw === undefined || raw === null || raw === '') return null;
  const text = String(raw).trim();
  const date = /^\d+$/.test(text) ? new Date(Number(text) < 1e11 ? Number(text) * 1000 : Number(text)) : new Date(text);
  if (Number.isNaN(date.getTime())) throw badRequest(`expires must be epoch milliseconds or an ISO 8601 date, got ${JSON.stringify(raw)}`);
  return date;
}

/** Named API keys: create (the secret shown once), list, revoke. */
export async function keyRoutes(app: Server, context: Context): Promise<void> {
  app.get('/keys.json', {
    schema: { tags: ['developer'], summary: "The account's API keys (never their secrets)", security: Basic, response: responses(Type.Array(KeySchema), 401, 404) },
    handler: async (request) => (await context.apiKeys.list(request.account.id)).map(presentKey),
  });

  app.post('/keys.json', {
    config: { audit: { action: 'key.create', detail: (_request, answer) => pick(answer, ['id', 'name', 'prefix', 'scope', 'expires']) } },
    schema: {
      tags: ['developer'],
      summary: 'Create an API key; the answer holds its secret, once',
      security: Basic,
      querystring: KeyParams,
      body: Type.Optional(KeyParams),
      response: responses(CreatedKeySchema, 400, 401, 403, 404, 409),
    },
    handler: async (request) => {
      const params = input(request);
      const created = await context.apiKeys.create(request.account, {
        name: requiredString(params, 'name'),
        scope: optionalString(params, 'scope'),
        expires: expiry(params),
      });
      return { ...presentKey(created.key), secret: created.secret, token: created.token };
    },
  });

  app.delete('/keys.json', {
    config: { audit: { action: 'key.revoke', detail: (_request, answer) => pick(answer, ['id', 'name', 'prefix']) } },
    schema: {
      tags: ['developer'],
      summary: 'Revoke an API key: it stops working at once',
      security: Basic,
      querystring: IdParam,
      response: responses(KeySchema, 400, 401, 403, 404),
    },
    handler: async (request) => presentKey(await context.apiKeys.revoke(request.account.id, requiredInteger(input(request), 'id'))),
  });
}

function pick(value: unknown, names: string[]): Record<string, unknown> {
  const source = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return Object.fromEntries(names.filter((name) => source[name] !== undefined).map((name) => [name, source[name]]));
}
