// PostgreSQL history pages read through a window of time (see MessagePages): the months a page
// first reads.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

/**
 * How far back a PostgreSQL page first reads, from the module's newest message or the page's upper
 * bound: a month, so that PostgreSQL opens one or two month partitions instead of every one kept.
 */
export const PAGE_WINDOW_MS = 31 * 24 * 3600 * 1000;

/**
 * Where a windowed page starts (exclusive): `PAGE_WINDOW_MS` before the module's newest message, or
 * before the page's upper bound if that is earlier. Null (no window) when neither is known. Read
 * where `modules` is the row of the page's module. `before` is a value, or a column of the read
 * (null for no bound: LEAST passes over nulls).
 */
export function windowStart(before: number | RawBuilder<number | null> | undefined) {
  const newest = sql.ref('modules.last_when_ms');
  const end = before === undefined ? sql`${newest} + 1` : sql`LEAST(${newest} + 1, ${before})`;
  return sql<number | null>`(${end} - ${sql.lit(PAGE_WINDOW_MS)})`;
}
