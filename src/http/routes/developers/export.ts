import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { RowId } from '../../schemas.js';
import { EXPORT_FORMATS, ExportBody, RawExportBody } from '../../send-export.js';
import { exportRoute } from './export-route.js';

const ModulePath = Type.Object({ sn: Type.String({ description: 'module serial' }) });
const AppPath = Type.Object({ idApp: RowId() });

/** Downloads of decoded messages (one module the account owns, with its children, or an app's modules) and of raw uplinks (a module's or an app's modules'). */
export async function exportRoutes(app: Server, context: Context): Promise<void> {
  // Format by format, so the routes (and the OpenAPI paths) keep the order they were listed in.
  for (const format of EXPORT_FORMATS) {
    exportRoute(app, format, {
      path: '/modules/:sn/messages',
      params: ModulePath,
      body: ExportBody,
      summary: 'A module’s messages (and its children’s) from from to to',
      file: (account, { sn }, query) => context.exports.forModule(account, sn, query, format),
    });
    exportRoute(app, format, {
      path: '/modules/:sn/raw',
      params: ModulePath,
      body: RawExportBody,
      summary: 'A module’s raw uplinks with their station reports, by network time from from to to,',
      file: (account, { sn }, query) => context.exports.rawForModule(account, sn, query, format),
    });
    exportRoute(app, format, {
      path: '/apps/:idApp/messages',
      params: AppPath,
      body: ExportBody,
      summary: 'The messages of every module attached to an app, module by module,',
      file: (account, { idApp }, query) => context.exports.forApp(account, idApp, query, format),
    });
    exportRoute(app, format, {
      path: '/apps/:idApp/raw',
      params: AppPath,
      body: RawExportBody,
      summary: 'The raw uplinks with their station reports of every module attached to an app, module by module,',
      file: (account, { idApp }, query) => context.exports.rawForApp(account, idApp, query, format),
    });
  }
}
