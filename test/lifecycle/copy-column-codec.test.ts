import { describe, expect, it } from 'vitest';
import { columnKind, encoder, rowEncoder } from '../../src/lifecycle/copy-column-codec.js';

describe('copy-data column codec', () => {
  it('reads both dialects’ declared types', () => {
    expect(['bigint', 'INTEGER', 'smallint'].map(columnKind)).toEqual(['integer', 'integer', 'integer']);
    expect(['double precision', 'REAL', 'numeric'].map(columnKind)).toEqual(['real', 'real', 'real']);
    expect(['boolean', 'jsonb', 'bytea', 'BLOB', 'text', ''].map(columnKind)).toEqual(['boolean', 'json', 'blob', 'blob', 'text', 'text']);
  });

  it("turns pg's bigint strings and JS bigints into numbers, booleans into 0/1", () => {
    const bigint = encoder({ name: 'at', type: 'bigint' }, 'sqlite');
    expect(bigint('1763000000000')).toBe(1_763_000_000_000);
    expect(bigint(42n)).toBe(42);
    expect(bigint(true)).toBe(1);
    expect(bigint(null)).toBeNull();
    expect(bigint(undefined)).toBeNull();
    expect(encoder({ name: 'snr', type: 'double precision' }, 'postgres')('-120.5')).toBe(-120.5);
  });

  it('writes PostgreSQL booleans as booleans, SQLite ones as 0/1', () => {
    expect(encoder({ name: 'b', type: 'boolean' }, 'postgres')(1)).toBe(true);
    expect(encoder({ name: 'b', type: 'boolean' }, 'postgres')(0)).toBe(false);
    expect(encoder({ name: 'b', type: 'boolean' }, 'sqlite')(true)).toBe(1);
  });

  it('sends JSON as its text, keeps text as text and blobs as bytes', () => {
    expect(encoder({ name: 'j', type: 'jsonb' }, 'postgres')({ a: [1] })).toBe('{"a":[1]}');
    expect(encoder({ name: 'j', type: 'json' }, 'postgres')('{"a":1}')).toBe('{"a":1}');
    expect(encoder({ name: 't', type: 'text' }, 'postgres')(5)).toBe('5');
    expect(encoder({ name: 't', type: 'text' }, 'sqlite')({ a: 1 })).toBe('{"a":1}');
    const bytes = Buffer.from([0, 1, 255]);
    expect(encoder({ name: 'x', type: 'bytea' }, 'postgres')(bytes)).toBe(bytes);
  });

  it('converts a whole row, column by column', () => {
    const encode = rowEncoder([{ name: 'id', type: 'bigint' }, { name: 'name', type: 'text' }], 'sqlite');
    expect(encode({ name: 'x', id: '7', extra: 1 })).toEqual([7, 'x']);
  });
});
