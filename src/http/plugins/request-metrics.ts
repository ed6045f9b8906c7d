import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';

/**
 * Counts every answer in `snsr_http_requests_total` by method, route pattern and status. The route
 * pattern (`/iot/developers/apps/:idApp/deliveries.json`), never the URL, keeps the label set small;
 * requests no route matched share one label.
 */
export async function requestMetricsPlugin(app: Server, context: Context): Promise<void> {
  const counter = context.metrics.httpRequests;
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    counter.inc({ method: request.method, route, status: String(reply.statusCode) });
  });
}
