import { Type } from 'typebox';
import type { TSchema } from 'typebox';

export const ErrorSchema = Type.Object(
  { statusCode: Type.Integer(), error: Type.String(), message: Type.String() },
  { $id: 'Error', description: 'every error has this shape' },
);
const ErrorRef = Type.Unsafe<{ statusCode: number; error: string; message: string }>({ $ref: 'Error#' });

/** Response schemas for the success body and the error statuses a route can answer. */
export function responses<T extends TSchema>(ok: T, ...errors: (400 | 401 | 403 | 404 | 409 | 410 | 413 | 429)[]) {
  const map: Record<number, TSchema> = { 200: ok };
  for (const status of errors) map[status] = ErrorRef;
  return map as { 200: T } & Record<number, TSchema>;
}

/** A void operation: 200 with an empty body. */
export const Empty = Type.Null({ description: 'empty body' });

export const ModuleItemSchema = Type.Object({ id: Type.String(), serial: Type.String() });

export const SerialsBody = Type.Object({ serials: Type.Array(Type.String()) });

/** Developer operations: Basic credentials (password, account token or API key), or the dashboard's session cookie. */
export const Basic: Record<string, string[]>[] = [{ basic: [] }, { session: [] }];
/** Device operations: the device token, or developer Basic credentials with `sn` naming the module. */
export const DeviceKey: Record<string, string[]>[] = [{ deviceKey: [] }, { basic: [] }];

/**
 * A row id in a path or query string. The bounds matter: query-string coercion turns `1e309` into
 * Infinity and `1e20` into a number no BIGINT column takes, which would fail inside the database
 * instead of as a 400 naming the parameter (Infinity itself: see finite-numbers.ts).
 */
export const RowId = (options: { minimum?: number; description?: string } = {}) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, ...options });
