import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { WAL_LIMIT_BYTES } from './connect.js';

/** SQLite's own threshold (pages in the WAL) for the writer to checkpoint when no one else does. */
const AUTO_CHECKPOINT_PAGES = 1000;

// The worker's whole program: its own connection to the file, which does nothing but copy committed
// WAL pages back into the database (PASSIVE: it never waits for or blocks the writer) every
// interval and, once the log holds more than the limit, catches up with the writer and asks it to
// let the log start over (see \`startCheckpointer\`). Plain CommonJS run from a string, so that it
// loads the same way from the sources under test as from the build; the driver is required by
// absolute path.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
// A frame is a page and its 24-byte header.
const limitFrames = Math.floor(workerData.walLimitBytes / (db.pragma('page_size', { simple: true }) + 24));
const pass = () => db.pragma('wal_checkpoint(PASSIVE)')[0].log;
// The log's length when the writer was last asked: an idle writer is not asked again.
let asked = 0;
const timer = setInterval(() => {
  const log = pass();
  if (log < limitFrames || log === asked) return;
  // Each pass copies what was committed during the one before: the writer's own checkpoint is
  // left with the last few milliseconds of commits.
  for (let i = 0; i < 3; i++) asked = pass();
  parentPort.postMessage('restart');
}, workerData.intervalMs);
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
  /** The WAL size past which the log starts over, and its file's size afterwards (default `WAL_LIMIT_BYTES`). */
  walLimitBytes?: number;
}

/**
 * Checkpoints the WAL of the database at `path` from a worker thread, and stops the writer (`db`,
 * the one connection that runs statements) from doing it itself. A checkpoint writes pages back to
 * the database file and syncs it; done by the writer, it happens inside whichever commit crosses
 * the threshold and stalls everything waiting on that connection (ingest's p99). In the worker it
 * costs the event loop nothing. Should the worker fail, the writer takes checkpoints back.
 *
 * The log starts over from its beginning only when a write transaction begins with every frame
 * already copied back. Under steady writes that never happens by itself: by the time the worker's
 * checkpoint ends, the writer has committed again, and the WAL grows without end (measured: 3.5 GB
 * in a minute of the ingest bench, 13 MB a second at 200 uplinks a second). So once the WAL holds
 * more than the limit, the worker catches up in a few passes back to back and asks the writer to
 * checkpoint once itself, between two of its transactions: it copies what the worker's last pass
 * left and syncs (measured under the ingest bench's full load: 2 to 18 ms, once every 0.6 s), and
 * its next transaction starts the log over, cutting the file back to the limit.
 */
export async function startCheckpointer(path: string, db: Kysely<Database>, options: CheckpointerOptions = {}): Promise<Checkpointer> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const walLimitBytes = options.walLimitBytes ?? WAL_LIMIT_BYTES;
  await setAutoCheckpoint(db, 0);
  await sql.raw(`pragma journal_size_limit = ${Math.trunc(walLimitBytes)}`).execute(db);
  const worker = new Worker(PROGRAM, { eval: true, workerData: { path, driver, intervalMs: options.intervalMs ?? 200, walLimitBytes } });
  let stopping = false;
  let restarting = false;
  worker.on('message', () => {
    if (stopping || restarting) return;
    restarting = true;
    // Queued behind the transaction in progress, if any. Should it not get every frame (the worker
    // checkpointing at that moment), the worker asks again after its next pass. A failing file
    // shows in the writes themselves; a checkpoint queued as the connection closes is moot.
    void sql`pragma wal_checkpoint(PASSIVE)`
      .execute(db)
      .catch(() => {})
      .finally(() => (restarting = false));
  });
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
