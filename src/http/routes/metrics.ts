import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from '../../context.js';
import { unauthorized } from '../../domain/errors.js';
import type { Server } from '../server-types.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Prometheus text format of this process's metrics; `Authorization: Bearer <SNSR_METRICS_TOKEN>` when that is set. */
export async function metricsRoutes(app: Server, context: Context): Promise<void> {
  const token = context.config.metricsToken;
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', {
    schema: {
      tags: ['operations'],
      summary: 'Prometheus metrics of this process (snsr_*)',
      description: 'Text exposition format. When SNSR_METRICS_TOKEN is set, send it as `Authorization: Bearer <token>`.',
      security: [{ metrics: [] }, {}],
    },
    logLevel: 'warn',
    onRequest: async (request) => {
      if (expected === undefined) return;
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match) throw unauthorized('Authorization: Bearer <metrics token> is required');
      if (!timingSafeEqual(digest(match[1]!), expected)) throw unauthorized('the metrics token is invalid');
    },
    handler: async (_request, reply) => {
      const text = await context.metrics.registry.metrics();
      return reply.type(context.metrics.registry.contentType).send(text);
    },
  });
}
