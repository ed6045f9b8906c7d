import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { Basic, responses, RowId } from '../../schemas.js';
import { EXPORT_FORMATS, ExportBody, ExportQuerySchema, RawExportBody, sendExport } from '../../send-export.js';

const ModulePath = Type.Object({ sn: Type.String({ description: 'module serial' }) });
const AppPath = Type.Object({ idApp: RowId() });
const ExportQuery = Type.Object(ExportQuerySchema);

/** Downloads of decoded messages (one module the account owns, with its children, or an app's modules) and of raw uplinks (a module's or an app's modules'). */
export async function exportRoutes(app: Server, context: Context): Promise<void> {
  for (const format of EXPORT_FORMATS) {
    const produces = [format === 'csv' ? 'text/csv' : 'application/x-ndjson'];
    app.get(`/modules/:sn/messages.${format}`, {
      schema: {
        tags: ['developer'],
        summary: `A module’s messages (and its children’s) from from to to as ${format.toUpperCase()}, streamed`,
        security: Basic,
        params: ModulePath,
        querystring: ExportQuery,
        produces,
        response: responses(ExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) =>
        sendExport(reply, await context.exports.forModule(request.account.id, request.params.sn, request.query, format)),
    });
    app.get(`/modules/:sn/raw.${format}`, {
      schema: {
        tags: ['developer'],
        summary: `A module’s raw uplinks with their station reports, by network time from from to to, as ${format.toUpperCase()}, streamed`,
        security: Basic,
        params: ModulePath,
        querystring: ExportQuery,
        produces,
        response: responses(RawExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) =>
        sendExport(reply, await context.exports.rawForModule(request.account.id, request.params.sn, request.query, format)),
    });
    app.get(`/apps/:idApp/messages.${format}`, {
      schema: {
        tags: ['developer'],
        summary: `The messages of every module attached to an app, module by module, as ${format.toUpperCase()}, streamed`,
        security: Basic,
        params: AppPath,
        querystring: ExportQuery,
        produces,
        response: responses(ExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) =>
        sendExport(reply, await context.exports.forApp(request.account.id, request.params.idApp, request.query, format)),
    });
    app.get(`/apps/:idApp/raw.${format}`, {
      schema: {
        tags: ['developer'],
        summary: `The raw uplinks with their station reports of every module attached to an app, module by module, as ${format.toUpperCase()}, streamed`,
        security: Basic,
        params: AppPath,
        querystring: ExportQuery,
        produces,
        response: responses(RawExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) =>
        sendExport(reply, await context.exports.rawForApp(request.account.id, request.params.idApp, request.query, format)),
    });
  }
}
