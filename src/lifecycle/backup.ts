import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { DatabaseTarget } from '../config.js';

/** better-sqlite3 clamps the pages per step to 0..2^31-1, and 0 would copy nothing. */
const ALL_PAGES = 0x7fffffff;

export class BackupError extends Error {}

export interface BackupResult {
  file: string;
  pages: number;
  bytes: number;
  ms: number;
}

/** The real path of a file that may not exist yet: its folder's, so `a/../b` and links compare equal. */
function canonical(file: string): string {
  const full = resolve(file);
  return existsSync(full) ? realpathSync(full) : resolve(realpathSync(dirname(full)), full.slice(dirname(full).length + 1));
}

/**
 * A consistent copy of a SQLite database that may be serving meanwhile, through SQLite's online
 * backup API. In WAL mode a reader neither blocks the writer nor sees its later commits, so the
 * copy runs in one step (the progress callback asks for every remaining page): done in small steps,
 * every commit of a busy server would restart it. The copy is checked before it is reported.
 */
export async function backupSqlite(source: string, destination: string, options: { overwrite?: boolean } = {}): Promise<BackupResult> {
  if (source === ':memory:') throw new BackupError('the database is in memory: there is nothing on disk to back up');
  if (!existsSync(source)) throw new BackupError(`no database at ${source}: check SNSR_DATABASE_URL`);
  const file = resolve(destination);
  if (!existsSync(dirname(file))) throw new BackupError(`folder ${dirname(file)} does not exist`);
  if (canonical(file) === canonical(source)) throw new BackupError('the backup file is the database itself: name another file');
  if (existsSync(file)) {
    if (!options.overwrite) throw new BackupError(`${file} exists: name a new file, or pass --force to replace it`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
  const started = performance.now();
  const database = new SqliteDatabase(source, { fileMustExist: true });
  let pages = 0;
  try {
    database.pragma('busy_timeout = 5000');
    await database.backup(file, {
      progress: (info) => {
        pages = info.totalPages;
        return ALL_PAGES;
      },
    });
  } catch (error) {
    rmSync(file, { force: true });
    throw new BackupError(`backup failed: ${(error as Error).message}`);
  } finally {
    database.close();
  }
  const copy = new SqliteDatabase(file, { fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copy at ${file} failed its integrity check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return { file, pages, bytes: statSync(file).size, ms: performance.now() - started };
}

/** How to restore a copy made by `backupSqlite` over the configured database. */
export function restoreInstructions(database: string, backup: string): string {
  return [
    'To restore it:',
    '  1. stop every snsr process using the database (serve, worker);',
    `  2. cp ${backup} ${database}`,
    `  3. rm -f ${database}-wal ${database}-shm   (left by the old database, they would be replayed over the copy)`,
    '  4. start snsr again: it migrates the copy if it is older than the running version.',
  ].join('\n');
}

/** A PostgreSQL URL fit to print: the password is replaced by `***`. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/** PostgreSQL has its own consistent online dump; snsr points to it rather than imitate it. */
export function postgresBackupAdvice(target: Extract<DatabaseTarget, { dialect: 'postgres' }>, file: string): string {
  const url = withoutPassword(target.url);
  return [
    'snsr backup copies SQLite databases; this one is PostgreSQL, whose pg_dump takes a consistent copy while snsr serves:',
    `  pg_dump --format=custom --file ${file} '${url}'`,
    'To restore it into an empty database (stop snsr first, or restore into a new database and point SNSR_DATABASE_URL at it):',
    `  pg_restore --no-owner --dbname '${url}' ${file}`,
  ].join('\n');
}
