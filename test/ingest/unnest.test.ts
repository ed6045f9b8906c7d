import { describe, expect, it } from 'vitest';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { dialects } from '../helpers/database.js';
import { POSTGRES_ADMIN_URL } from '../helpers/scratch-database.js';
import { hot, packText, rows } from '../../src/ingest/unnest.js';
import type { Database } from '../../src/storage/schema.js';

// Every character an array literal or the packing could trip on, and the packing's own marks.
const awkward: (string | null)[][] = [
  [],
  [''],
  [null],
  ['', null, ''],
  ['NULL', 'null', '{}', '{a,b}', 'a,b', ' spaced ', '"quoted"', 'back\\slash', '\\"', '\\'],
  ['{"ctxt":{"index":0,"serial":"1005"},"payload":"020300189167"}', 'tab\there', 'line\nbreak'],
  ['\x1e', '\x1f', '\x1d', '\x1c', '\x1e\x1f\x1d\x1c', 'sep\x1einside'],
  ['\ue000', '\ue001\ue002', 'é', '漢字', 'emoji 🛰️', 'x'.repeat(100_000)],
];

describe('text arrays packed for PostgreSQL', () => {
  it('mark separators, NULLs and empty strings with characters no element holds', () => {
    const packed = packText(['a', null, '', 'b']);
    expect(packed).toBe('\x1e\x1f\x1da\x1e\x1f\x1e\x1d\x1eb');
    const [separator, nul, empty] = packText(['\x1e and \x1f', '\x1d']);
    expect([separator, nul, empty]).toEqual(['\x1c', '\ue000', '\ue001']);
  });

  it('take numbers and booleans as their text, and refuse anything else', () => {
    expect(packText([1, 2.5, true, 10n]).slice(3).split('\x1e')).toEqual(['1', '2.5', 'true', '10']);
    expect(() => packText([{ a: 1 }])).toThrow(/a text array holds object/);
  });

  it.runIf(dialects.includes('postgres'))('come back from PostgreSQL element for element, with the non-text arrays beside them', async () => {
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 1 }) }) });
    const statement = hot('SELECT t, n, t = ANY($1::text[]) AS found FROM unnest($1::text[], $2::integer[]) WITH ORDINALITY u(t, n, i) ORDER BY i');
    try {
      for (const texts of awkward) {
        const numbers = texts.map((_, i) => i);
        const found = await rows<{ t: string | null; n: number; found: boolean | null }>(db, statement, [texts, numbers]);
        expect(found.map((row) => row.t)).toEqual(texts);
        expect(found.map((row) => row.n)).toEqual(numbers);
        expect(found.map((row) => row.found)).toEqual(texts.map((text) => (text === null ? null : true)));
      }
    } finally {
      await db.destroy();
    }
  });
});
