import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { optionalInteger, optionalString } from '../../params.js';
import type { Input } from '../../params.js';
import { DeviceKey, responses } from '../../schemas.js';
import { EXPORT_FORMATS, ExportBody, ExportQuerySchema, RawExportBody, sendExport } from '../../send-export.js';

const ExportQuery = Type.Object({
  ...ExportQuerySchema,
  id: Type.Optional(Type.String({ description: 'only this device’s messages (a device of the module)' })),
  sn: Type.Optional(Type.String({ description: 'module serial (optional with a device token), or a child’s serial' })),
});

const RawExportQuery = Type.Object({
  ...ExportQuerySchema,
  sn: Type.Optional(Type.String({ description: 'module serial (optional with a device token)' })),
});

/** The module's decoded messages, or its raw uplinks, in a time range, as a download (CSV or NDJSON), oldest first. */
export async function exportRoutes(app: Server, context: Context): Promise<void> {
  for (const format of EXPORT_FORMATS) {
    app.get(`/msgs/export.${format}`, {
      schema: {
        tags: ['device'],
        summary: `The module’s messages from from to to as ${format.toUpperCase()}, streamed`,
        security: DeviceKey,
        querystring: ExportQuery,
        produces: [format === 'csv' ? 'text/csv' : 'application/x-ndjson'],
        response: responses(ExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) => {
        const query = request.query as Input;
        const selector = { id: optionalInteger(query, 'id'), sn: optionalString(query, 'sn') };
        return sendExport(reply, await context.exports.forDevice(request.deviceScope, selector, query, format));
      },
    });
    app.get(`/msgs/sfx/export.${format}`, {
      schema: {
        tags: ['device'],
        summary: `The module’s raw uplinks with their station reports, by network time from from to to, as ${format.toUpperCase()}, streamed`,
        security: DeviceKey,
        querystring: RawExportQuery,
        produces: [format === 'csv' ? 'text/csv' : 'application/x-ndjson'],
        response: responses(RawExportBody(format), 400, 401, 404),
      },
      handler: async (request, reply) =>
        sendExport(reply, await context.exports.rawForDevice(request.deviceScope, { sn: optionalString(request.query as Input, 'sn') }, request.query as Input, format)),
    });
  }
}
