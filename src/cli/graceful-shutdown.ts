import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.js';

/** While draining, connections that finished their request are closed this often. */
const IDLE_SWEEP_MS = 100;

/**
 * Stops a serving process within a bound: the listening socket closes and idle keep-alive
 * connections with it; connections that finish their request while draining are closed as they
 * become idle; requests still in flight after `graceMs` (a client trickling a body, a half-sent
 * request) are cut. Then the context closes, which lets callback sends in flight finish (the
 * worker's own bound) and closes the database. Any serving process calls this, once.
 */
export async function shutDownServer(server: FastifyInstance | undefined, context: Context, graceMs: number): Promise<void> {
  if (server) {
    const http = server.server;
    const sweep = setInterval(() => http.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => http.closeAllConnections(), graceMs);
    try {
      await server.close();
    } finally {
      clearInterval(sweep);
      clearTimeout(deadline);
    }
  }
  await context.close();
}

/**
 * Runs `stop` on the first SIGTERM or SIGINT and exits 0 once it is done (1 if it failed): nothing a
 * client left open keeps the process alive after that.
 */
export function stopOnSignals(context: Context, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    context.log.info({ signal }, 'shutting down');
    stop().then(
      () => {
        context.log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        context.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
