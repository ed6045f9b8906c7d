import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import { MAX_PAGE, MODULE_SORTS, MODULE_STATES, parseModuleFilter, parseModuleListQuery } from '../../../domain/module-list.js';
import type { LabelsPatch } from '../../../domain/labels.js';
import { input, requiredString } from '../../params.js';
import type { Input } from '../../params.js';
import { Basic, responses, RowId } from '../../schemas.js';
import { LabelsSchema, ModuleListPageSchema, presentLabels, presentModuleListPage } from '../../presenters/module-list.js';

const Filter = {
  q: Type.Optional(Type.String({ description: 'serial (prefix), name (part) or tag (whole) of the module or a child; any case' })),
  tag: Type.Optional(Type.String({ description: 'only modules with this tag (on the module or a child)' })),
  state: Type.Optional(Type.String({ description: MODULE_STATES.join(', ') })),
  app: Type.Optional(Type.String({ description: 'only modules attached to this app id' })),
  notapp: Type.Optional(Type.String({ description: 'only modules not attached to this app id' })),
};
const ListQuery = Type.Object({
  ...Filter,
  sort: Type.Optional(Type.String({ description: `${MODULE_SORTS.join(', ')} (default lastseen)` })),
  order: Type.Optional(Type.String({ description: 'asc or desc (default: newest, most alerts, low battery, A–Z first)' })),
  limit: Type.Optional(Type.String({ description: `page size, 1 to ${MAX_PAGE} (default 50)` })),
  offset: Type.Optional(Type.String({ description: 'rows to skip (default 0)' })),
});
const FilterQuery = Type.Object(Filter);
const AppPath = Type.Object({ idApp: RowId() });
const SnQuery = Type.Object({ sn: Type.Optional(Type.String({ description: 'module serial, or <serial>/<entry id> for a child' })) });

/** A string, null (clear) or absent; anything else is a 400 naming the field. */
function nullableString(params: Input, name: string): string | null | undefined {
  const value = params[name];
  if (value === undefined || value === null || typeof value === 'string') return value;
  throw badRequest(`${name} must be a string or null`);
}

function tagsParameter(params: Input, name: string): string[] | string | null | undefined {
  const value = params[name];
  if (value === undefined || value === null || typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((tag) => typeof tag === 'string')) return value;
  throw badRequest(`${name} must be an array of strings or one string of tags separated by commas`);
}

/** The module list (search, sort, filter, page), bulk tagging and attaching, names/tags/notes of devices. */
export async function moduleListRoutes(app: Server, context: Context): Promise<void> {
  app.get('/modules/list.json', {
    schema: {
      tags: ['developer'],
      summary: 'Search, filter, sort and page the registered modules, with the columns the dashboard shows',
      security: Basic,
      querystring: ListQuery,
      response: responses(ModuleListPageSchema, 400, 401, 404),
    },
    handler: async (request) => {
      const query = parseModuleListQuery(request.query);
      return presentModuleListPage(await context.moduleList.page(request.account.id, query), query);
    },
  });

  app.get('/modules/serials.json', {
    schema: {
      tags: ['developer'],
      summary: 'Every serial that matches a module-list filter',
      security: Basic,
      querystring: FilterQuery,
      response: responses(Type.Object({ total: Type.Integer(), serials: Type.Array(Type.String()) }), 400, 401, 404),
    },
    handler: async (request) => {
      const serials = await context.moduleList.serials(request.account.id, parseModuleFilter(request.query));
      return { total: serials.length, serials };
    },
  });

  app.post('/apps/:idApp/modules/attach-matching.json', {
    config: { audit: { action: 'app.attach', detail: (request, answer) => ({ app: (request.params as { idApp: number }).idApp, ...(answer as object), filter: request.query }) } },
    schema: {
      tags: ['developer'],
      summary: 'Attach every module that matches a module-list filter to an app',
      security: Basic,
      params: AppPath,
      querystring: FilterQuery,
      response: responses(Type.Object({ attached: Type.Integer({ description: 'modules newly attached' }) }), 400, 401, 404),
    },
    handler: async (request) => ({
      attached: await context.moduleList.attachMatching(request.account.id, request.params.idApp, parseModuleFilter(request.query)),
    }),
  });

  app.post('/modules/tags.json', {
    config: { audit: { action: 'module.tag', detail: (_request, answer) => answer as Record<string, unknown> } },
    schema: {
      tags: ['developer'],
      summary: 'Add and remove tags on modules: those listed in `serials`, else every one matching the filter',
      security: Basic,
      querystring: FilterQuery,
      response: responses(Type.Object({ modules: Type.Integer(), changed: Type.Integer() }), 400, 401, 404),
    },
    handler: async (request) => {
      const params = input(request);
      const listed = params.serials;
      if (listed !== undefined && !(Array.isArray(listed) && listed.every((s) => typeof s === 'string'))) throw badRequest('serials must be an array of strings');
      const serials = listed ?? (await context.moduleList.serials(request.account.id, parseModuleFilter(request.query)));
      const add = tagsParameter(params, 'add') ?? undefined;
      const remove = tagsParameter(params, 'remove') ?? undefined;
      return context.labels.retag(request.account.id, serials as string[], { ...(add !== undefined && { add }), ...(remove !== undefined && { remove }) });
    },
  });

  app.get('/labels.json', {
    schema: {
      tags: ['developer'],
      summary: 'Names, tags and notes of a module and its children',
      security: Basic,
      querystring: SnQuery,
      response: responses(Type.Array(LabelsSchema), 400, 401, 404),
    },
    handler: async (request) => (await context.labels.ofModule(request.account.id, requiredString(request.query, 'sn'))).map(presentLabels),
  });

  app.post('/labels.json', {
    config: { audit: { action: 'module.label', detail: (request) => ({ sn: (request.query as { sn?: string }).sn ?? null }) } },
    schema: {
      tags: ['developer'],
      summary: 'Name, tag or annotate a module or child device: fields left out stay, null or "" clears',
      security: Basic,
      querystring: SnQuery,
      response: responses(LabelsSchema, 400, 401, 404),
    },
    handler: async (request) => {
      const params = input(request);
      const patch: LabelsPatch = {};
      const name = nullableString(params, 'name');
      const notes = nullableString(params, 'notes');
      const tags = tagsParameter(params, 'tags');
      if (name !== undefined) patch.name = name;
      if (notes !== undefined) patch.notes = notes;
      if (tags !== undefined) patch.tags = tags;
      return presentLabels(await context.labels.set(request.account.id, requiredString(params, 'sn'), patch));
    },
  });
}
