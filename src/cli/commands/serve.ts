import { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createContext } from '../../context.js';
import { buildServer } from '../../http/server.js';

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the API (and dashboard) on HOST:PORT, migrating the database first')
    .option('--no-worker', 'do not deliver callbacks in this process (PostgreSQL: run `snsr worker` processes instead)')
    .action(async (options: { worker: boolean }) => {
      const config = loadConfig();
      const context = await createContext(config, { migrate: true });
      const server = await buildServer(context);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        context.log.info({ signal }, 'shutting down');
        await server.close();
        await context.close();
      };
      process.once('SIGTERM', () => void stop('SIGTERM'));
      process.once('SIGINT', () => void stop('SIGINT'));
      const address = await server.listen({ port: config.port, host: config.host });
      context.log.info(`snsr listening on ${address} (database: ${context.storage.capabilities.dialect})`);
      // Callbacks are sent from this process unless dedicated workers do it; `context.close()` stops it.
      if (options.worker) context.startWorker();
      context.startMaintenance();
    });
}
