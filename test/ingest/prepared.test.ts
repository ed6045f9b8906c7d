import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { prepared } from '../../src/ingest/prepared.js';
import type { Database } from '../../src/storage/schema.js';

describe.each(dialects)('prepared queries (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
  });
  afterAll(() => app.close());

  it('builds once, then runs with each call’s arguments in place of the markers', async () => {
    let builds = 0;
    const insert = prepared((db: Kysely<Database>, name: string, value: string) => {
      builds++;
      return db.insertInto('settings').values({ name, value }).returning(['name', 'value']);
    });
    const select = prepared((db: Kysely<Database>, prefix: string, limit: number) =>
      db.selectFrom('settings').select('name').where('name', 'like', prefix).orderBy('name').limit(limit),
    );
    const db = app.context.storage.db;
    expect(await insert(db, 'p-one', '1')).toEqual([{ name: 'p-one', value: '1' }]);
    expect(await insert(db, 'p-two', '2')).toEqual([{ name: 'p-two', value: '2' }]);
    await db.transaction().execute(async (trx) => {
      expect(await insert(trx, 'p-three', '3')).toEqual([{ name: 'p-three', value: '3' }]);
    });
    expect(builds).toBe(1);
    expect(await select(db, 'p-%', 2)).toEqual([{ name: 'p-one' }, { name: 'p-three' }]);
    expect(await select(db, 'p-t%', 5)).toEqual([{ name: 'p-three' }, { name: 'p-two' }]);
  });

  it('refuses a builder that leaves an argument out of the parameters', async () => {
    const wrong = prepared((db: Kysely<Database>, _unused: string) => db.selectFrom('settings').select('name'));
    await expect(wrong(app.context.storage.db, 'x')).rejects.toThrow(/every argument must be a parameter/);
  });
});
