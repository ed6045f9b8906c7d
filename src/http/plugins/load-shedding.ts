import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../error-rendering.js';

/** Seconds a shed client is asked to wait before trying again. */
export const SHED_RETRY_AFTER_S = 2;
/** Paths answered however busy the process is: load balancers judge it by them. */
const EXEMPT = new Set(['/healthz']);

const SAMPLE_INTERVAL_MS = 200;

/**
 * When the event loop lags more than `maxDelayMs` (measured every 200 ms), new requests are
 * answered at once with 503 and `Retry-After` instead of joining a queue that grows without bound;
 * `/healthz` is still answered. `maxDelayMs` 0 turns shedding off. It starts once the server has
 * listened for two samples: compiling the routes' schemas on start blocks the loop once, and is
 * no reason to turn away the first clients.
 */
export async function loadShedding(app: FastifyInstance, maxDelayMs: number): Promise<void> {
  if (maxDelayMs === 0) return;
  let armed = false;
  app.addHook('onListen', async () => {
    setTimeout(() => (armed = true), 2 * SAMPLE_INTERVAL_MS).unref();
  });
  await app.register(underPressure, {
    maxEventLoopDelay: maxDelayMs,
    sampleInterval: SAMPLE_INTERVAL_MS,
    // The plugin sends what the handler returns and lets the request through when it returns
    // nothing (its types say void only).
    pressureHandler: ((request: FastifyRequest, reply: FastifyReply) => {
      if (!armed || EXEMPT.has(request.url.split('?')[0]!)) return undefined;
      reply.code(503).header('retry-after', String(SHED_RETRY_AFTER_S));
      return errorBody(503, `the server is overloaded (its event loop lags more than ${maxDelayMs} ms): retry after ${SHED_RETRY_AFTER_S} s`);
    }) as unknown as (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => void,
  });
}
