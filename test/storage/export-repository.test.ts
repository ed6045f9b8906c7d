import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ExportRepository } from '../../src/storage/export-repository.js';
import type { Database } from '../../src/storage/schema.js';

/** The repository over a database that answers nothing: what matters here is the SQL it sends. */
function recording(): { repository: ExportRepository; queries: CompiledQuery[] } {
  const queries: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new SqliteIntrospector(k), createQueryCompiler: () => new SqliteQueryCompiler() },
    log: (event) => void queries.push(event.query),
  });
  return { repository: new ExportRepository(db), queries };
}

/** The value bound to `column >= ?` in a compiled query. */
function lowerBound(query: CompiledQuery, column: string): unknown {
  const before = query.sql.slice(0, query.sql.indexOf(`${column}" >= ?`));
  return query.parameters[(before.match(/\?/g) ?? []).length];
}

describe('export pages start their index range at the last row read, not at from', () => {
  it('messages: the time bound is the previous page’s last time, so a page deep in a long range costs what the first does', async () => {
    const { repository, queries } = recording();
    await repository.messages({ moduleSerial: 'C0FE', from: 1_000, to: 9_000_000, limit: 1000 });
    await repository.messages({ moduleSerial: 'C0FE', from: 1_000, to: 9_000_000, after: { when: 5_000_000, id: 42 }, limit: 1000 });
    expect(lowerBound(queries[0]!, 'when_ms')).toBe(1_000);
    expect(lowerBound(queries[1]!, 'when_ms')).toBe(5_000_000);
  });

  it('raw messages: the same on the network time', async () => {
    const { repository, queries } = recording();
    await repository.rawMessages({ moduleSerial: 'C0FE', fromS: 10, toS: 90_000, limit: 1000 });
    await repository.rawMessages({ moduleSerial: 'C0FE', fromS: 10, toS: 90_000, after: { timeS: 50_000, id: 42 }, limit: 1000 });
    expect(lowerBound(queries[0]!, 'time_s')).toBe(10);
    expect(lowerBound(queries[1]!, 'time_s')).toBe(50_000);
  });
});
