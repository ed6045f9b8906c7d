import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';
import { connectSqlite } from '../../src/storage/sqlite/connect.js';
import { startCheckpointer } from '../../src/storage/sqlite/checkpointer.js';

// SQLite only: checkpoints are a property of its WAL file; PostgreSQL has nothing like them.
const dir = mkdtempSync(join(tmpdir(), 'snsr-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Polls until `check` holds, failing after `ms` (generous: a busy machine is slow, not wrong). */
async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const autoCheckpoint = async (db: Parameters<typeof startCheckpointer>[1]) =>
  (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]!.wal_autocheckpoint;

describe('SQLite checkpoints in a worker thread', () => {
  it('copies committed pages into the database file from the worker, the writer never checkpointing itself', async () => {
    const file = join(dir, 'worker.sqlite');
    const storage = await openStorage(`sqlite:${file}`, { migrate: true, backgroundCheckpoints: true });
    try {
      expect(await autoCheckpoint(storage.db)).toBe(0);
      const before = statSync(file).size;
      // 4 MB in one commit: more than SQLite's own threshold (1,000 pages), all of it in the WAL.
      const value = 'x'.repeat(4000);
      await storage.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 1000; i++) await trx.insertInto('settings').values({ name: `filler-${i}`, value }).execute();
      });
      // The database file grows only when a checkpoint writes the pages back: the worker's doing.
      await until(() => statSync(file).size >= before + 4_000_000);
      expect((await storage.db.selectFrom('settings').select('name').where('name', 'like', 'filler-%').execute()).length).toBe(1000);
    } finally {
      await storage.close();
    }
    // Closed in order: the last connection checkpoints and removes the WAL.
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('starts the log over once it passes the limit, though the writer never pauses', async () => {
    const file = join(dir, 'steady.sqlite');
    const db = connectSqlite(file);
    const limit = 1024 * 1024;
    const checkpointer = await startCheckpointer(file, db, { intervalMs: 20, walLimitBytes: limit });
    try {
      await sql`create table filler (id integer primary key, value text)`.execute(db);
      // Commits back to back, as under steady ingest: the worker's checkpoints never catch up with
      // the last commit, so the log starts over only when the writer is asked to help. Until the
      // WAL file is cut back (without the writer's help it only grows).
      const wal = () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
      const value = 'x'.repeat(3000);
      let largest = 0;
      let written = 0;
      for (;;) {
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < 4; i++) await sql`insert into filler (value) values (${value})`.execute(trx);
        });
        written += 4 * value.length;
        // A turn of the event loop between commits, as a server's group commit takes one.
        await new Promise((resolve) => setImmediate(resolve));
        largest = Math.max(largest, wal());
        // Cut back: the log started over (only then is the file truncated, to the limit).
        if (largest > limit && wal() < largest) break;
        // Where checkpoints cost next to nothing (a /tmp in memory) the worker may keep up alone.
        if (largest <= limit && written > 16 * limit) break;
        if (written > 256 * limit) throw new Error(`the WAL never started over: ${largest} bytes after ${written} written`);
      }
      expect(wal()).toBeLessThanOrEqual(limit);
    } finally {
      await checkpointer.stop();
      await db.destroy();
    }
  });

  it('hands checkpoints back to the writer when the worker fails, and says so', async () => {
    const file = join(dir, 'fallback.sqlite');
    const db = connectSqlite(file);
    const errors: unknown[] = [];
    try {
      // The worker cannot open its file: it fails at once.
      const checkpointer = await startCheckpointer(join(dir, 'missing', 'none.sqlite'), db, { onError: (error) => errors.push(error) });
      await until(() => errors.length > 0);
      await until(async () => (await autoCheckpoint(db)) === 1000);
      await checkpointer.stop();
      expect(String(errors[0])).toMatch(/unable to open|directory does not exist|no such file/i);
    } finally {
      await db.destroy();
    }
  });

  it('leaves an in-memory database, and a storage not asked to, alone', async () => {
    const memory = await openStorage('sqlite::memory:', { migrate: true, backgroundCheckpoints: true });
    const file = join(dir, 'plain.sqlite');
    const plain = await openStorage(`sqlite:${file}`);
    try {
      expect(await autoCheckpoint(memory.db)).toBe(1000);
      expect(await autoCheckpoint(plain.db)).toBe(1000);
    } finally {
      await memory.close();
      await plain.close();
    }
  });
});
