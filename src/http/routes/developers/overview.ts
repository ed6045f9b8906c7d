import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { OverviewSchema, presentOverview } from '../../presenters/overview.js';
import { Basic, responses } from '../../schemas.js';

/** The dashboard's landing page in one call. */
export async function overviewRoutes(app: Server, context: Context): Promise<void> {
  app.get('/overview.json', {
    schema: {
      tags: ['developer'],
      summary: 'Fleet overview: module counts, open alerts, failed deliveries, uplinks per hour over the last 24 h, latest alerts and problems',
      security: Basic,
      response: responses(OverviewSchema, 401),
    },
    handler: async (request) => {
      const now = Date.now();
      return presentOverview(await context.overview.of(request.account.id, now), now);
    },
  });
}
