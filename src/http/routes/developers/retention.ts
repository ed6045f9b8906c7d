import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { input, optionalInteger, requiredInteger, requiredString } from '../../params.js';
import type { Input } from '../../params.js';
import { Basic, responses } from '../../schemas.js';

const Days = Type.Union([Type.Integer(), Type.Null()]);
const Source = Type.Object(
  { from: Type.Union([Type.Literal('module'), Type.Literal('app'), Type.Literal('default')]), app: Type.Optional(Type.Integer()), name: Type.Optional(Type.String()) },
  { description: "the module's own choice, the longest choice among its apps (app: its id and name), or the operator's default" },
);
const Retention = Type.Object({
  serial: Type.String(),
  messages_days: Type.Union([Days], { description: "the owner's choice for messages in days (0: forever); null: no choice of the module's own" }),
  raw_days: Type.Union([Days], { description: "the owner's choice for raw messages and station reports; null: no choice of the module's own" }),
  effective: Type.Object({ messages_days: Type.Integer(), raw_days: Type.Integer() }, { description: 'what is in force (0: kept forever)' }),
  source: Type.Object({ messages_days: Source, raw_days: Source }, { description: 'where each retention in force comes from' }),
});
const AppRetention = Type.Object({
  id: Type.Integer({ description: 'the app' }),
  messages_days: Type.Union([Days], { description: "the app owner's choice for its modules' messages in days (0: forever); null: none" }),
  raw_days: Type.Union([Days], { description: "the app owner's choice for its modules' raw messages; null: none" }),
  defaults: Type.Object({ messages_days: Type.Integer(), raw_days: Type.Integer() }, { description: "the operator's defaults (0: forever)" }),
});
const DaysParam = Type.Optional(Type.Union([Type.String(), Type.Integer(), Type.Null()]));
const Params = Type.Object({
  sn: Type.Optional(Type.String({ description: 'module serial, any case' })),
  messages_days: DaysParam,
  raw_days: DaysParam,
});
const AppParams = Type.Object({
  idApp: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'the app' })),
  messages_days: DaysParam,
  raw_days: DaysParam,
});

/** Absent, empty or null: back to the operator's default. */
function days(params: Input, name: string): number | null {
  const value = params[name];
  if (value === null || value === undefined || value === '') return null;
  const parsed = optionalInteger(params, name);
  if (parsed === undefined) throw badRequest(`${name} must be an integer number of days`);
  return parsed;
}

/**
 * How long a module's uplink data is kept: the module's own choice, else the longest of its apps'
 * choices, else the operator's defaults.
 */
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

  app.get('/apps/retention.json', {
    schema: { tags: ['developer'], summary: "An app's retention choice for the modules attached to it", security: Basic, querystring: AppParams, response: responses(AppRetention, 400, 401, 404) },
    handler: async (request) => context.retention.ofApp(request.account.id, requiredInteger(request.query as Input, 'idApp')),
  });

  app.post('/apps/retention.json', {
    config: { audit: 'app.retention' },
    schema: {
      tags: ['developer'],
      summary: "Set how long the messages and raw messages of an app's modules are kept (days; 0 forever; empty: no choice). A module's own choice wins; among apps the longest",
      security: Basic,
      querystring: AppParams,
      body: Type.Optional(AppParams),
      response: responses(AppRetention, 400, 401, 404),
    },
    handler: async (request) => {
      const params = input(request);
      return context.retention.setApp(request.account.id, requiredInteger(params, 'idApp'), { messagesDays: days(params, 'messages_days'), rawDays: days(params, 'raw_days') });
    },
  });
}
