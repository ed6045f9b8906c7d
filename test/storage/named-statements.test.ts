import { describe, expect, it } from 'vitest';
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
});
