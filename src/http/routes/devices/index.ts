import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { deviceAuth } from '../../auth/device-auth.js';
import { tokenRoutes } from './token.js';
import { messageRoutes } from './messages.js';
import { rawMessageRoutes } from './raw-messages.js';
import { moduleDataRoutes } from './module-data.js';
import { flagRoutes } from './flags.js';
import { deviceStreamRoutes } from './stream.js';

/** Operations 16–26 under /iot/devices: the token route is open, the rest need device auth. */
export async function deviceRoutes(app: Server, context: Context): Promise<void> {
  await tokenRoutes(app, context);
  await app.register(async (scope) => {
    scope.addHook('preValidation', deviceAuth(context));
    await messageRoutes(scope, context);
    await rawMessageRoutes(scope, context);
    await moduleDataRoutes(scope, context);
    await flagRoutes(scope, context);
    await deviceStreamRoutes(scope, context);
  });
}

/**
 * The oldest dashboards' /mcs/devices paths for the token, history and recents: the same route
 * modules again, marked deprecated in the API reference.
 */
export async function legacyDeviceRoutes(app: Server, context: Context): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, tags: ['legacy'], deprecated: true };
  });
  await tokenRoutes(app, context);
  await app.register(async (scope) => {
    scope.addHook('preValidation', deviceAuth(context));
    await messageRoutes(scope, context);
  });
}
