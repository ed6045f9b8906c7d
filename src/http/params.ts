import type { FastifyRequest } from 'fastify';
import { badRequest, tooLarge } from '../domain/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

export type Input = Record<string, unknown>;

const isObject = (value: unknown): value is Input => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parameters of a POST/DELETE, from the body (JSON or form) and the query string; the query wins. */
export function input(request: FastifyRequest): Input {
  return { ...(isObject(request.body) ? request.body : {}), ...(request.query as Input) };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

export function optionalString(params: Input, name: string): string | undefined {
  const value = params[name];
  if (!present(value)) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw badRequest(`${name} must be a string`);
}

export function requiredString(params: Input, name: string): string {
  const value = optionalString(params, name);
  if (value === undefined) throw badRequest(`${name} is required`);
  return value;
}

export function optionalInteger(params: Input, name: string): number | undefined {
  const value = params[name];
  if (!present(value)) return undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) throw badRequest(`${name} must be an integer, got ${JSON.stringify(value)}`);
  return number;
}

export function requiredInteger(params: Input, name: string): number {
  const value = optionalInteger(params, name);
  if (value === undefined) throw badRequest(`${name} is required`);
  return value;
}

/** A parameter that carries JSON text (old clients send objects as form fields): parsed, depth-checked. */
export function jsonParameter(text: string, name: string, expected: string): unknown {
  if (nestsDeeperThan(text)) throw badRequest(`${name} nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`${name} must be ${expected}`);
  }
}

/** A list parameter within the documented maximum per request (`SNSR_MAX_BATCH`): 413 beyond it. */
export function withinBatch<T>(list: T[], name: string, max: number): T[] {
  if (list.length > max) throw tooLarge(`${name} holds ${list.length} entries; one request takes at most ${max}: split it`);
  return list;
}
