import { Type } from 'typebox';
import type { Static, TSchema } from 'typebox';
import type { ExportFile, ExportQuery } from '../../../lifecycle/export-service.js';
import type { ExportFormat } from '../../../lifecycle/message-export.js';
import type { Server } from '../../server-types.js';
import { Basic, responses } from '../../schemas.js';
import { ExportQuerySchema, sendExport } from '../../send-export.js';

const Query = Type.Object(ExportQuerySchema);

/** One developer download: what differs between the export routes; the rest is the same for all. */
export interface ExportRoute<Params extends TSchema> {
  /** The URL path without its extension: the format's name is appended. */
  path: string;
  params: Params;
  /** The 200 body schema, described per format. */
  body: (format: ExportFormat) => TSchema;
  /** What is sent, up to the format: " as CSV, streamed" follows it. */
  summary: string;
  /** The export itself, for the caller's account, path params and range. */
  file: (accountId: number, params: Static<Params>, query: ExportQuery) => Promise<ExportFile>;
}

/** Registers a developer export route in one format: Basic auth, the range query, streamed. */
export function exportRoute<Params extends TSchema>(app: Server, format: ExportFormat, route: ExportRoute<Params>): void {
  app.get(`${route.path}.${format}`, {
    schema: {
      tags: ['developer'],
      summary: `${route.summary} as ${format.toUpperCase()}, streamed`,
      security: Basic,
      params: route.params,
      querystring: Query,
      produces: [format === 'csv' ? 'text/csv' : 'application/x-ndjson'],
      response: responses(route.body(format), 400, 401, 404),
    },
    // Fastify has validated the params against route.params; TypeScript cannot resolve the type
    // provider's type for a schema that is still generic here, hence the cast.
    handler: async (request, reply) => sendExport(reply, await route.file(request.account.id, request.params as Static<Params>, request.query)),
  });
}
