import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { ConfigError, parseDatabaseUrl } from '../config.js';
import type { Config } from '../config.js';

/** A worker that dies sooner than this after its start is not restarted again at once. */
const STEADY_MS = 10_000;
const RESTART_PAUSE_MS = 1000;

/**
 * The primary of `snsr serve --processes N`: migrates once, forks N processes that each run the
 * whole server (HTTP on the shared port — Node hands each new connection to one of them — plus its
 * own delivery worker), restarts one that crashes, and on SIGTERM/SIGINT passes the signal on and
 * waits for every process to finish its graceful shutdown. Nothing else is shared in memory: the
 * processes meet in PostgreSQL (row locks, leases, LISTEN/NOTIFY), as separate machines would.
 */
export async function runPrimary(config: Config, count: number, log: Logger): Promise<void> {
  if (parseDatabaseUrl(config.databaseUrl).dialect !== 'postgres') {
    throw new ConfigError('several processes need PostgreSQL (SNSR_DATABASE_URL=postgres://…): a SQLite file belongs to one process');
  }
  // One migration, before any process serves: N processes racing to migrate would wait on each other.
  const { openStorage } = await import('../storage/storage.js');
  const storage = await openStorage(config.databaseUrl, { migrate: true });
  await storage.close();

  let stopping = false;
  const started = new Map<Worker, number>();
  const fork = () => started.set(cluster.fork(), Date.now());
  for (let i = 0; i < count; i++) fork();

  cluster.on('exit', (worker, code, signal) => {
    const since = started.get(worker) ?? 0;
    started.delete(worker);
    if (stopping) {
      if (started.size === 0) {
        log.info('every process has stopped');
        process.exit(0);
      }
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'a server process died; starting another');
    setTimeout(fork, Date.now() - since < STEADY_MS ? RESTART_PAUSE_MS : 0);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, processes: started.size }, 'shutting down every process');
    for (const worker of started.keys()) worker.process.kill('SIGTERM');
    if (started.size === 0) process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  log.info({ processes: count }, 'snsr starting its server processes');
}

/** True in a process forked by `runPrimary`: it serves, without migrating again. */
export const isClusterWorker = () => cluster.isWorker;
