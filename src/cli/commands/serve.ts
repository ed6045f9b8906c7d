import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { loadConfig } from '../../config.js';
import { printServeBanner } from '../serve-banner.js';
import { isClusterWorker, runPrimary } from '../cluster.js';
import { limitHeapGrowth } from '../heap-growth.js';

const processCount = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('a whole number from 1 to 256');
  return n;
};

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the API (and dashboard) on HOST:PORT, migrating the database first')
    .option('--no-worker', 'do not deliver callbacks in this process (PostgreSQL: run `snsr worker` processes instead)')
    .option('--processes <n>', 'server processes sharing the port, one per core (PostgreSQL); default SNSR_PROCESSES or 1', processCount)
    .action(async (options: { worker: boolean; processes?: number }) => {
      const config = loadConfig();
      limitHeapGrowth(config.heapGrowthPercent);
      const processes = options.processes ?? config.processes;
      if (processes > 1 && !isClusterWorker()) {
        const log = pino({ level: config.logLevel });
        return runPrimary(config, processes, log);
      }
      // The server is loaded only when it is started, so that `snsr --help` answers at once.
      const [{ createContext }, { buildServer }, { shutDownServer, stopOnSignals }] = await Promise.all([
        import('../../context.js'),
        import('../../http/server.js'),
        import('../graceful-shutdown.js'),
      ]);
      // A forked process: the primary migrated already.
      const context = await createContext(config, { migrate: !isClusterWorker(), backgroundCheckpoints: true });
      const server = await buildServer(context);
      stopOnSignals(context, () => shutDownServer(server, context, config.limits.shutdownGraceMs));
      const address = await server.listen({ port: config.port, host: config.host });
      context.log.info(`snsr listening on ${address} (database: ${context.storage.capabilities.dialect})`);
      printServeBanner(config, Number(new URL(address).port));
      // Callbacks are sent from this process unless dedicated workers do it; `context.close()` stops it.
      if (options.worker) context.startWorker();
      context.startMaintenance();
      context.startWatchdog();
      context.startMqtt();
      context.startAlertMailer();
    });
}
