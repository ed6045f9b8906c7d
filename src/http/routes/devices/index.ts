import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { deviceAuth, deviceQuotaKey } from '../../auth/device-auth.js';
import { tokenRoutes } from './token.js';
import { messageRoutes } from './messages.js';
import { rawMessageRoutes } from './raw-messages.js';
import { moduleDataRoutes } from './module-data.js';
import { flagRoutes } from './flags.js';
import { deviceStreamRoutes } from './stream.js';
import { requestQuota } from '../../plugins/rate-limits.js';
import { exportRoutes } from './export.js';

/** A module's requests share one quota, however they authenticate. */
const deviceQuota = (app: Server, context: Context) =>
  requestQuota(app, context.config.limits.deviceRequestsPerMinute, deviceQuotaKey);

/**
 * Operations 16–26 under /iot/devices: the token route is open, the rest need device auth.
 * `recentsAliases`: more paths answering like recents.
 */
export async function deviceRoutes(app: Server, context: Context, recentsAliases: string[] = []): Promise<void> {
  const quota = deviceQuota(app, context);
  await tokenRoutes(app, context);
  await app.register(async (scope) => {
    scope.addHook('preValidation', deviceAuth(context));
    if (quota) scope.addHook('preHandler', quota);
    await messageRoutes(scope, context, recentsAliases);
    await rawMessageRoutes(scope, context);
    await moduleDataRoutes(scope, context);
    await flagRoutes(scope, context);
    await deviceStreamRoutes(scope, context);
    await exportRoutes(scope, context);
  });
}

/**
 * The first portal's /mcs/devices paths: every device operation again, and `msgs.json` answering
 * like recents; marked deprecated in the API reference.
 */
export async function legacyDeviceRoutes(app: Server, context: Context): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, tags: ['legacy'], deprecated: true };
  });
  await deviceRoutes(app, context, ['/msgs.json']);
}
