import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite connection', () => {
  it('takes the write lock when a transaction begins, so another process writing meanwhile cannot make it fail', async () => {
    const file = join(dir, 'snsr.sqlite');
    const storage = await openStorage(`sqlite:${file}`, { migrate: true });
    try {
      await storage.db.transaction().execute(async (trx) => {
        await trx.selectFrom('settings').selectAll().execute();
        // Another process (a CLI command beside the server) tries to write in the middle: it waits,
        // then gives up; with a deferred transaction it would win and this one would fail instead.
        const other = new SqliteDatabase(file);
        other.pragma('busy_timeout = 50');
        expect(() => other.prepare("insert into settings (name, value) values ('other', 'x')").run()).toThrow(/locked|busy/i);
        other.close();
        await trx.insertInto('settings').values({ name: 'mine', value: 'y' }).execute();
      });
      const names = (await storage.db.selectFrom('settings').select('name').execute()).map((row) => row.name);
      expect(names).toContain('mine');
      expect(names).not.toContain('other');
    } finally {
      await storage.close();
    }
  });
});
