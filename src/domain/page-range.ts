import type { TimeRange } from '../storage/message-pages.js';
import { afterMs, beforeMs, parseAmount, parseInstant } from './time-range.js';

/** History and recents: how many, and the exclusive bounds, as sent. */
export type PageParameters = { amount?: unknown; until?: unknown; after?: unknown };

/** The page's bounds from the wire; 400 naming the parameter when one is not valid. */
export function pageRange(page: PageParameters): TimeRange {
  const limit = parseAmount('amount', page.amount);
  const before = beforeMs(parseInstant('until', page.until));
  const after = afterMs(parseInstant('after', page.after));
  return { limit, ...(before !== undefined && { before }), ...(after !== undefined && { after }) };
}
