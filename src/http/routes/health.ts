import { Type } from 'typebox';
import { sql } from 'kysely';
import type { Context } from '../../context.js';
import type { Server } from '../server-types.js';
import { responses } from '../schemas.js';

/** Liveness and readiness: 200 once the database answers, 503 while it does not. */
export async function healthRoutes(app: Server, context: Context): Promise<void> {
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      summary: 'Health check for load balancers',
      response: { ...responses(Type.Object({ status: Type.String() })), 503: Type.Object({ status: Type.String(), message: Type.String() }) },
    },
    logLevel: 'warn',
    handler: async (_request, reply) => {
      try {
        await sql`select 1`.execute(context.storage.db);
        return { status: 'ok' };
      } catch (error) {
        return reply.code(503).send({ status: 'unavailable', message: `database: ${(error as Error).message}` });
      }
    },
  });
}
