import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { input, optionalInteger, requiredString } from '../../params.js';
import type { Input } from '../../params.js';
import { Basic, responses } from '../../schemas.js';

const Days = Type.Union([Type.Integer(), Type.Null()]);
const Retention = Type.Object({
  serial: Type.String(),
  messages_days: Type.Union([Days], { description: "the owner's choice for messages in days (0: forever); null: the operator's default" }),
  raw_days: Type.Union([Days], { description: "the owner's choice for raw messages and station reports; null: the operator's default" }),
  effective: Type.Object({ messages_days: Type.Integer(), raw_days: Type.Integer() }, { description: 'what is in force (0: kept forever)' }),
});
const Params = Type.Object({
  sn: Type.Optional(Type.String({ description: 'module serial, any case' })),
  messages_days: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
  raw_days: Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()])),
});

/** Absent, empty or null: back to the operator's default. */
function days(params: Input, name: string): number | null {
  const value = params[name];
  if (value === null || value === undefined || value === '') return null;
  const parsed = optionalInteger(params, name);
  if (parsed === undefined) throw badRequest(`${name} must be an integer number of days`);
  return parsed;
}

/** How long a module's uplink data is kept: the owner's choice over the operator's defaults. */
export async function retentionRoutes(app: Server, context: Context): Promise<void> {
  app.get('/modules/retention.json', {
    schema: { tags: ['developer'], summary: "A module's retention: the owner's choice and what is in force", security: Basic, querystring: Params, response: responses(Retention, 400, 401, 404) },
    handler: async (request) => context.retention.ofModule(request.account.id, requiredString(request.query as Input, 'sn')),
  });

  app.post('/modules/retention.json', {
    config: { audit: 'module.retention' },
    schema: {
      tags: ['developer'],
      summary: "Set how long a module's messages and raw messages are kept (days; 0 forever; empty: the operator's default)",
      security: Basic,
      querystring: Params,
      body: Type.Optional(Params),
      response: responses(Retention, 400, 401, 404),
    },
    handler: async (request) => {
      const params = input(request);
      return context.retention.setModule(request.account.id, requiredString(params, 'sn'), { messagesDays: days(params, 'messages_days'), rawDays: days(params, 'raw_days') });
    },
  });
}
