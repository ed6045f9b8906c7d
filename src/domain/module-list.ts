import type { Health } from './types.js';
import { badRequest } from './errors.js';
import { parseTag } from './labels.js';

export const MODULE_SORTS = ['lastseen', 'alerts', 'battery', 'name', 'serial'] as const;
export type ModuleSort = (typeof MODULE_SORTS)[number];
/** `seen-24h` and `silent` (not heard for a day, or never) split the fleet by the last day. */
export const MODULE_STATES = ['alerting', 'low-battery', 'seen-24h', 'silent', 'never-seen', 'inactive', 'watched'] as const;
export type ModuleState = (typeof MODULE_STATES)[number];
export const MAX_PAGE = 500;

/** Which of the owner's modules: every field narrows the set. */
export interface ModuleFilter {
  /** Serial (prefix), name (part of) or tag (whole), of the module or one of its children; any case. */
  search?: string;
  tag?: string;
  state?: ModuleState;
  /** Only modules attached to this app, or only those not attached to it (the attach picker). */
  app?: number;
  notApp?: number;
}

export interface ModuleListQuery extends ModuleFilter {
  sort: ModuleSort;
  /** Default: newest first for last seen, most first for alerts, low first for battery, A–Z for names. */
  descending: boolean;
  limit: number;
  offset: number;
}

/** One line of the module list: every column the table shows, read in one query. */
export interface ModuleListRow {
  id: number;
  serial: string;
  protocol: string;
  name: string | null;
  tags: string[];
  lastseen: Date | null;
  battery: Health;
  level: Health;
  network: Health;
  active: boolean;
  watched: boolean;
  msgs: number;
  losts: number;
  /** Open (not ended) alerts of the module and its children. */
  alerts: number;
  children: number;
}

export interface ModuleListPage {
  total: number;
  modules: ModuleListRow[];
}

type Raw = Record<string, string | undefined>;

function integer(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw badRequest(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(raw: string | undefined, name: string, values: readonly T[]): T | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!values.includes(raw as T)) throw badRequest(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** The filter part of a query string (also what "attach all matching" and bulk tagging take). */
export function parseModuleFilter(raw: Raw): ModuleFilter {
  const search = raw.q?.trim();
  if (search !== undefined && search.length > 100) throw badRequest('q must be at most 100 characters');
  const app = integer(raw.app, 'app', 0, 1, Number.MAX_SAFE_INTEGER);
  const notApp = integer(raw.notapp, 'notapp', 0, 1, Number.MAX_SAFE_INTEGER);
  const state = oneOf(raw.state, 'state', MODULE_STATES);
  return {
    ...(search && { search }),
    ...(raw.tag !== undefined && raw.tag !== '' && { tag: parseTag(raw.tag) }),
    ...(state && { state }),
    ...(app > 0 && { app }),
    ...(notApp > 0 && { notApp }),
  };
}

/** `q`, `tag`, `state`, `app`, `notapp`, `sort`, `order` (asc/desc), `limit` (≤ 500, default 50), `offset`. */
export function parseModuleListQuery(raw: Raw): ModuleListQuery {
  const sort = oneOf(raw.sort, 'sort', MODULE_SORTS) ?? 'lastseen';
  const order = oneOf(raw.order, 'order', ['asc', 'desc'] as const);
  const naturallyDescending = sort === 'lastseen' || sort === 'alerts';
  return {
    ...parseModuleFilter(raw),
    sort,
    descending: order === undefined ? naturallyDescending : order === 'desc',
    limit: integer(raw.limit, 'limit', 50, 1, MAX_PAGE),
    offset: integer(raw.offset, 'offset', 0, 0, 10_000_000),
  };
}
