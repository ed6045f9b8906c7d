import { createHash } from 'node:crypto';

/** SQL texts of fixed shape that run on every uplink or history read, with the names they run under. */
const names = new Map<string, string>();

/**
 * Marks a statement as hot. On PostgreSQL each pooled connection then parses and plans it once and
 * afterwards only binds and executes it (a named statement), which saves the server most of a short
 * statement's CPU. Only statements of fixed text belong here (the ingest pipeline's and the history
 * read's), so that each connection keeps a few dozen at most. SQLite caches every statement anyway.
 */
export function markHot(sql: string): void {
  if (!names.has(sql)) names.set(sql, `snsr_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`);
}

/** The name a hot statement runs under, or undefined for any other. */
export const hotStatementName = (sql: string): string | undefined => names.get(sql);
