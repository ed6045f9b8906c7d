import { badRequest } from './errors.js';

/** How many items a history page holds when the caller does not say, and at most. */
export const DEFAULT_AMOUNT = 20;
export const MAX_AMOUNT = 1000;

/**
 * Epoch values below this are seconds, above it milliseconds: 10^11 s is the year 5138, 10^11 ms is
 * March 1973, so no real timestamp of either unit falls on the wrong side.
 */
export const SECONDS_BELOW = 1e11;

const NUMBER = /^\s*\d+(\.\d+)?\s*$/;

/** The latest instant a JavaScript Date holds (year 275760): later bounds are typos, not times. */
const MAX_MS = 8.64e15;

const absent = (raw: unknown): boolean => raw === undefined || raw === null || raw === '';

/** `amount` / `limit`: a whole number from 1 to 1000, 20 when absent. */
export function parseAmount(name: string, raw: unknown): number {
  if (absent(raw)) return DEFAULT_AMOUNT;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > MAX_AMOUNT) {
    throw badRequest(`${name} must be a whole number from 1 to ${MAX_AMOUNT}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A time bound (`until`, `after`, `before`) in epoch milliseconds, or undefined when absent. Old
 * clients send milliseconds taken from `when`, others seconds: values below 10^11 are seconds.
 * Fractions are kept; callers round in the direction that keeps the bound exclusive.
 */
export function parseInstant(name: string, raw: unknown): number | undefined {
  if (absent(raw)) return undefined;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && NUMBER.test(raw) ? Number(raw) : NaN;
  const ms = value < SECONDS_BELOW ? value * 1000 : value;
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_MS) {
    throw badRequest(`${name} must be an epoch time in milliseconds or seconds, got ${JSON.stringify(raw)}`);
  }
  return ms;
}

/** Exclusive upper bound on whole milliseconds: `when < x` ⇔ `when < ceil(x)` for integer `when`. */
export const beforeMs = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.ceil(ms));

/** Exclusive lower bound on whole milliseconds: `when > x` ⇔ `when > floor(x)`. */
export const afterMs = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.floor(ms));

/** Exclusive upper bound on whole seconds (raw messages' `time`): `time < x/1000` ⇔ `time < ceil(x/1000)`. */
export const beforeSeconds = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : Math.ceil(ms / 1000));
