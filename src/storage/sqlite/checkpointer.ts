import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** SQLite's own threshold (pages in the WAL) for the writer to checkpoint when no one else does. */
const AUTO_CHECKPOINT_PAGES = 1000;

// The worker's whole program: its own connection to the file, which does nothing but copy committed
// WAL pages back into the database (PASSIVE: it never waits for or blocks the writer) every
// interval. Plain CommonJS run from a string, so that it loads the same way from the sources under
// test as from the build; the driver is required by absolute path.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker (its connection closed) and hands checkpoints back to the writer. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** How often the worker checkpoints (ms). */
  intervalMs?: number;
  /** Told when the worker fails; the writer checkpoints again by itself from then on. */
  onError?: (error: unknown) => void;
}

/**
 * Checkpoints the WAL of the database at `path` from a worker thread, and stops the writer (`db`,
 * the one connection that runs statements) from doing it itself. A checkpoint writes pages back to
 * the database file and syncs it; done by the writer, it happens inside whichever commit crosses
 * the threshold and stalls everything waiting on that connection (ingest's p99). In the worker it
 * costs the event loop nothing. Should the worker fail, the writer takes checkpoints back.
 */
export async function startCheckpointer(path: string, db: Kysely<Database>, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  await setAutoCheckpoint(db, 0);
  const worker = new Worker(PROGRAM, { eval: true, workerData: { path, driver, intervalMs: options.intervalMs ?? 200 } });
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const handBack = async (error: unknown) => {
    if (stopping) return;
    stopping = true;
    options.onError?.(error);
    await setAutoCheckpoint(db, AUTO_CHECKPOINT_PAGES).catch(() => {});
  };
  // Never what keeps a process alive: one that exits without closing its storage loses nothing (the
  // WAL is checkpointed by the next connection to open the file).
  worker.unref();
  worker.once('error', (error) => void handBack(error));
  worker.once('exit', (code) => void handBack(new Error(`checkpoint worker exited with code ${code}`)));
  return {
    async stop() {
      if (!stopping) {
        stopping = true;
        // Waited for now: an unreferenced worker would let the process's event loop run dry first.
        worker.ref();
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}

async function setAutoCheckpoint(db: Kysely<Database>, pages: number): Promise<void> {
  await sql.raw(`pragma wal_autocheckpoint = ${pages}`).execute(db);
}
