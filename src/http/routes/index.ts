import type { FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import { requestQuota } from '../plugins/rate-limits.js';
import type { Server } from '../server-types.js';
import { developerAuth } from '../auth/developer-auth.js';
import { healthRoutes } from './health.js';
import { securityRoutes } from './security.js';
import { accountRoutes } from './developers/account.js';
import { appRoutes } from './developers/apps.js';
import { moduleRoutes } from './developers/modules.js';
import { moduleListRoutes } from './developers/module-list.js';
import { deliveryRoutes } from './developers/deliveries.js';
import { webhookRoutes } from './developers/webhooks.js';
import { decodeRoutes } from './developers/decode.js';
import { deviceRoutes, legacyDeviceRoutes } from './devices/index.js';
import { uplinkRoutes } from './network/uplink.js';
import { dashboardRoutes } from './dashboard.js';
import { sessionRoutes } from './developers/session.js';
import { keyRoutes } from './developers/keys.js';
import { auditRoutes } from './developers/audit.js';
import { registerRoute, selfServiceRoutes } from './developers/self-service.js';
import { profileRoutes } from './developers/profile.js';
import { simulatorRoutes } from './developers/simulator.js';
import { alertRoutes } from './developers/alerts.js';
import { alertEmailRoutes } from './developers/alert-email.js';
import { metricsRoutes } from './metrics.js';
import { streamRoutes } from './developers/stream.js';

/** The quota of a developer credential: the account's password and token share one, each API key has its own. */
const developerQuotaKey = (request: FastifyRequest) =>
  `developer:${request.account.id}${request.credential.kind === 'key' ? `:key:${request.credential.keyId}` : ''}`;
import { exportRoutes } from './developers/export.js';
import { retentionRoutes } from './developers/retention.js';
import { overviewRoutes } from './developers/overview.js';

/** The one place routes are registered; each folder is a URL prefix with its own auth hook. */
export async function registerRoutes(app: Server, context: Context): Promise<void> {
  const developerQuota = requestQuota(app, context.config.limits.developerRequestsPerMinute, developerQuotaKey);
  await app.register(async (scope) => healthRoutes(scope, context));
  await app.register(async (scope) => metricsRoutes(scope, context));
  await app.register(async (scope) => securityRoutes(scope, context));
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', developerAuth(context));
      if (developerQuota) scope.addHook('preHandler', developerQuota);
      await accountRoutes(scope, context);
      await appRoutes(scope, context);
      await moduleRoutes(scope, context);
      await moduleListRoutes(scope, context);
      await deliveryRoutes(scope, context);
      await webhookRoutes(scope, context);
      await decodeRoutes(scope, context);
      await keyRoutes(scope, context);
      await auditRoutes(scope, context);
      await alertRoutes(scope, context);
      await alertEmailRoutes(scope, context);
      await streamRoutes(scope, context);
      await exportRoutes(scope, context);
      await retentionRoutes(scope, context);
      await overviewRoutes(scope, context);
    },
    { prefix: '/iot/developers' },
  );
  // Open: sign-in, sign-up, activation and reset links authenticate themselves.
  await app.register(
    async (scope) => {
      await sessionRoutes(scope, context);
      await selfServiceRoutes(scope, context);
    },
    { prefix: '/iot/developers' },
  );
  await app.register(async (scope) => registerRoute(scope, context), { prefix: '/mcs' });
  await app.register(async (scope) => {
    scope.addHook('onRequest', developerAuth(context));
    if (developerQuota) scope.addHook('preHandler', developerQuota);
    await profileRoutes(scope, context, '/iot');
    await profileRoutes(scope, context, '/mcs');
    await simulatorRoutes(scope, context, '/iot/developers/simulator.json');
    await simulatorRoutes(scope, context, '/mcs/simulator.json');
  });
  await app.register(async (scope) => deviceRoutes(scope, context), { prefix: '/iot/devices' });
  await app.register(async (scope) => legacyDeviceRoutes(scope, context), { prefix: '/mcs/devices' });
  await app.register(async (scope) => uplinkRoutes(scope, context), { prefix: '/network/sigfox' });
  // Last: its GET /* answers the dashboard's pages, after every API route has claimed its path.
  await app.register(async (scope) => dashboardRoutes(scope, context));
}
