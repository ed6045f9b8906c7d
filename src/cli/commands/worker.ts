import { Command } from 'commander';
import { ConfigError, loadConfig } from '../../config.js';
import { limitHeapGrowth } from '../heap-growth.js';

export function workerCommand(): Command {
  return new Command('worker')
    .description('deliver callbacks (and alert emails, with SMTP) without serving HTTP (PostgreSQL; several may run side by side)')
    .addHelpText('after', '\nRun `snsr serve --no-worker` beside it. SIGTERM or SIGINT stops claiming, lets sends in flight\nfinish (10 s at most), and queues the rest again.')
    .action(async () => {
      const config = loadConfig();
      limitHeapGrowth(config.heapGrowthPercent);
      const [{ createContext }, { shutDownServer, stopOnSignals }] = await Promise.all([import('../../context.js'), import('../graceful-shutdown.js')]);
      const context = await createContext(config, { migrate: true });
      if (!context.storage.capabilities.skipLocked) {
        // A SQLite file belongs to one process: a second writer makes the server's transactions
        // fail with "database is locked". There, `snsr serve` sends the callbacks itself.
        await context.close();
        throw new ConfigError('snsr worker needs PostgreSQL (SNSR_DATABASE_URL=postgres://…); with SQLite, snsr serve delivers callbacks itself');
      }
      stopOnSignals(context, () => shutDownServer(undefined, context, config.limits.shutdownGraceMs));
      context.startWorker();
      // Alert emails go out from whichever process holds their lease, a worker as well as a server.
      context.startAlertMailer();
      context.log.info(`snsr worker running (database: ${context.storage.capabilities.dialect})`);
    });
}
