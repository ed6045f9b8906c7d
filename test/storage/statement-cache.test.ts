import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { boundLimits, cachingStatements } from '../../src/storage/sqlite/statement-cache.js';

/** A database whose every prepared text is recorded, as SQLite is asked to prepare it. */
function recorded() {
  const database = new SqliteDatabase(':memory:');
  database.exec(`create table t (n integer, label text); insert into t (n, label) values ${Array.from({ length: 10 }, (_, i) => `(${i}, 'row ${i}')`).join(', ')}`);
  const prepared: string[] = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare(sql);
  }) as typeof database.prepare;
  return { database, prepared };
}

let open: SqliteDatabase.Database[] = [];
afterEach(() => {
  for (const database of open) database.close();
  open = [];
});

describe('boundLimits', () => {
  it('finds each LIMIT and OFFSET bound as a parameter, in any case, by its place among the parameters', () => {
    expect(boundLimits('select * from t where a = ? and b = ? order by a limit ? offset ?')).toEqual({
      pieces: ['select * from t where a = ? and b = ? order by a limit ', ' offset ', ''],
      slots: [2, 3],
    });
    expect(boundLimits('SELECT * FROM t WHERE a = ? LIMIT\n? ')?.slots).toEqual([1]);
  });

  it('takes no ? in a string, a quoted name or a comment for a parameter, and finds nothing in a text without bound limits', () => {
    const sql = `select '?', "limit ?", [x?] from t /* limit ? */ where a = ? -- limit ?\n limit ?`;
    expect(boundLimits(sql)?.slots).toEqual([1]);
    expect(boundLimits('select * from t where a = ? limit 20')).toBeUndefined();
    expect(boundLimits('select "limit" from t where "offset" = ?')).toBeUndefined();
  });
});

describe('cachingStatements', () => {
  it('writes bound limits and offsets into the text, prepares each text once, and answers as the bound query would', async () => {
    const { database, prepared } = recorded();
    open.push(database);
    const db = new Kysely<{ t: { n: number; label: string } }>({ dialect: new SqliteDialect({ database: cachingStatements(database) }) });
    const page = (from: number, size: number, skip: number) =>
      db.selectFrom('t').select('n').where('n', '>=', from).orderBy('n').limit(size).offset(skip).execute();

    expect(await page(2, 3, 1)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    expect(await page(0, 3, 1)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await page(5, 2, 0)).toEqual([{ n: 5 }, { n: 6 }]);
    expect(await page(1, 2, 0)).toEqual([{ n: 1 }, { n: 2 }]);
    const texts = prepared.filter((sql) => sql.startsWith('select "n"'));
    expect(texts).toEqual([
      'select "n" from "t" where "n" >= ? order by "n" limit ? offset ?',
      'select "n" from "t" where "n" >= ? order by "n" limit 3 offset 1',
      'select "n" from "t" where "n" >= ? order by "n" limit 2 offset 0',
    ]);
    await db.destroy();
  });

  it('binds a value that is not a count as it came, so SQLite answers it as before', async () => {
    const { database, prepared } = recorded();
    open.push(database);
    const statements = cachingStatements(database);
    const statement = statements.prepare('select n from t order by n limit ?');
    // A negative LIMIT is no limit to SQLite; a fraction or text is its own to refuse or convert.
    expect(statement.all([-1])).toHaveLength(10);
    expect(statement.all(['2'])).toHaveLength(2);
    expect(statement.all([4n])).toHaveLength(4);
    expect(prepared).toEqual(['select n from t order by n limit ?', 'select n from t order by n limit 4']);
    expect(statement.reader).toBe(true);
  });

  it('runs a text again while a stream of it is still being read', () => {
    const { database } = recorded();
    open.push(database);
    const statement = cachingStatements(database).prepare('select n from t order by n limit ?');
    const stream = statement.iterate([5]);
    expect(stream.next().value).toEqual({ n: 0 });
    expect(statement.all([5])).toHaveLength(5);
    expect([...stream]).toEqual([1, 2, 3, 4].map((n) => ({ n })));
  });

  it('runs writes with a bound limit through the rewritten text too', () => {
    const { database } = recorded();
    open.push(database);
    const statements = cachingStatements(database);
    const update = statements.prepare("update t set label = 'first' where n in (select n from t order by n limit ?)");
    expect(update.reader).toBe(false);
    expect(update.run([3]).changes).toBe(3);
    expect(database.prepare("select count(*) as c from t where label = 'first'").get()).toEqual({ c: 3 });
  });
});
