import { badRequest } from './errors.js';

/** What the owner calls a module or child device: shown wherever its serial is, and searchable. */
export interface Labels {
  name: string | null;
  tags: string[];
  notes: string | null;
}

/** A change: absent fields stay as they are; `null` or '' clears a name or notes, [] the tags. */
export interface LabelsPatch {
  name?: string | null;
  tags?: string[] | string | null;
  notes?: string | null;
}

export const TAG = /^[a-z0-9][a-z0-9_.:-]{0,31}$/;
export const MAX_TAGS = 20;
const MAX_NAME = 100;
const MAX_NOTES = 2000;

/** One tag as stored: lower case, 1–32 of a-z 0-9 _ . : - (no spaces or commas: they separate tags). */
export function parseTag(raw: string): string {
  const tag = raw.trim().toLowerCase();
  if (!TAG.test(tag)) {
    throw badRequest(`tag "${raw}" must be 1 to 32 characters of a-z, 0-9, _ . : - starting with a letter or digit`);
  }
  return tag;
}

/** Tags as an array or as one string separated by commas or spaces; duplicates dropped, order kept. */
export function parseTags(raw: string[] | string | null): string[] {
  const list = raw === null ? [] : typeof raw === 'string' ? raw.split(/[\s,]+/) : raw;
  const tags = [...new Set(list.filter((tag) => tag.trim() !== '').map(parseTag))];
  if (tags.length > MAX_TAGS) throw badRequest(`tags: at most ${MAX_TAGS} per device, got ${tags.length}`);
  return tags;
}

function text(value: string | null, field: string, max: number): string | null {
  const trimmed = (value ?? '').trim();
  if (trimmed.length > max) throw badRequest(`${field} must be at most ${max} characters`);
  return trimmed === '' ? null : trimmed;
}

/** Validates a patch into the columns to set; every problem is a 400 naming the field. */
export function parseLabelsPatch(patch: LabelsPatch): Partial<Labels> {
  const parsed: Partial<Labels> = {};
  if (patch.name !== undefined) parsed.name = text(patch.name, 'name', MAX_NAME);
  if (patch.notes !== undefined) parsed.notes = text(patch.notes, 'notes', MAX_NOTES);
  if (patch.tags !== undefined) parsed.tags = parseTags(patch.tags);
  return parsed;
}

/** The stored form, " a b " (see migrations/*\/0010_labels.sql), and back. */
export const encodeTags = (tags: string[]): string => (tags.length === 0 ? '' : ` ${tags.join(' ')} `);
export const decodeTags = (stored: string): string[] => stored.split(' ').filter((tag) => tag !== '');
