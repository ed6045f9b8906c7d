import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../domain/errors.js';

/** Where in `value` (a parameter's path, `a.b.0`) a text holds a NUL, or undefined. */
function nulIn(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  // Parsed bodies nest at most MAX_JSON_DEPTH levels (json-depth.ts): the walk stays short.
  for (const [key, item] of Object.entries(value)) {
    const found = nulIn(item, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

const PARTS = [
  ['query', (request: FastifyRequest) => request.query],
  ['path', (request: FastifyRequest) => request.params],
  ['body', (request: FastifyRequest) => request.body],
] as const;

/**
 * No parameter of the API holds a NUL (U+0000): not an identifier, a key, a name or a URL, and
 * PostgreSQL cannot store one in text. A request sending one, in the query string, the path or the
 * body, is refused with a 400 naming the parameter, before authentication and validation read it,
 * so both databases answer it alike.
 */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, read] of PARTS) {
      const path = nulIn(read(request), '');
      if (path !== undefined) throw badRequest(`${path === '' ? part : `${part} parameter ${path}`} must not contain a NUL character (U+0000)`);
    }
  });
}
