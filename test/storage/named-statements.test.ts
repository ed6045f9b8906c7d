import { describe, expect, it } from 'vitest';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { dialects } from '../helpers/database.js';
import { POSTGRES_ADMIN_URL } from '../helpers/scratch-database.js';
import { hotStatementName, markHot } from '../../src/storage/hot-statements.js';
import { namingPool } from '../../src/storage/postgres/named-statements.js';

describe.runIf(dialects.includes('postgres'))('hot statements on PostgreSQL', () => {
  it('run by name, so each connection parses them once; other statements stay unnamed', async () => {
    const hot = 'SELECT $1::int + 1 AS n /* hot-statement test */';
    markHot(hot);
    const name = hotStatementName(hot)!;
    expect(name).toMatch(/^snsr_[0-9a-f]{20}$/);
    const pool = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 1 });
    try {
      const client = await namingPool(pool).connect();
      try {
        expect((await client.query<{ n: number }>(hot, [1])).rows).toEqual([{ n: 2 }]);
        expect((await client.query<{ n: number }>(hot, [41])).rows).toEqual([{ n: 42 }]);
        await client.query('SELECT $1::int AS cold', [1]);
        const prepared = await client.query<{ name: string; statement: string }>('SELECT name, statement FROM pg_prepared_statements', []);
        expect(prepared.rows).toEqual([{ name, statement: hot }]);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it('send a transaction\'s begin with its first statement when that is hot, and keep the transaction whole', async () => {
    const hot = 'INSERT INTO snsr_begin_test (v) VALUES ($1) RETURNING v /* pipelined begin test */';
    markHot(hot);
    const pool = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 1, pipeline: true });
    const db = new Kysely<{ snsr_begin_test: { v: number } }>({ dialect: new PostgresDialect({ pool: namingPool(pool) }) });
    const values = async () => (await db.selectFrom('snsr_begin_test').select('v').orderBy('v').execute()).map((row) => row.v);
    try {
      await sql`CREATE TEMP TABLE IF NOT EXISTS snsr_begin_test (v int)`.execute(db);
      // A hot first statement, then a failure: rolled back with the rest of the transaction.
      const failing = db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(hot, [1]));
        throw new Error('the caller gives up');
      });
      await expect(failing).rejects.toThrow('the caller gives up');
      expect(await values()).toEqual([]);
      // Committed: both its statements, the first hot one and a plain one.
      await db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(hot, [2]));
        await sql`INSERT INTO snsr_begin_test (v) VALUES (3)`.execute(trx);
      });
      expect(await values()).toEqual([2, 3]);
      // A plain first statement waits for the begin, and is rolled back as well.
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`INSERT INTO snsr_begin_test (v) VALUES (4)`.execute(trx);
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(await values()).toEqual([2, 3]);
      // A begin that fails fails the hot statement sent behind it.
      const client = await namingPool(pool).connect();
      try {
        await client.query('begin', []);
        await expect(client.query('SELECT 1/0', [])).rejects.toThrow('division by zero');
        await client.query('begin', []);
        await expect(client.query(hot, [5])).rejects.toThrow('current transaction is aborted');
        await client.query('rollback', []);
      } finally {
        client.release();
      }
      expect(await values()).toEqual([2, 3]);
    } finally {
      await db.destroy();
    }
  });
});
