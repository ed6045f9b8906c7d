import { STATUS_CODES } from 'node:http';
import Router from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import { STATUS_OF } from './error-mapping.js';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

/** Why a request failed schema validation, in words that name the parameter. */
function validationMessage(error: FastifyError): string {
  const where = error.validationContext === 'querystring' ? 'query' : (error.validationContext ?? 'request');
  // The first issue names the parameter; the rest of a union's issues only repeat it less clearly.
  return (error.validation ?? [])
    .slice(0, 1)
    .map((issue) => {
      const missing = (issue.params as { missingProperty?: string }).missingProperty;
      const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
      if (missing) return `${where} parameter ${path ? `${path}.` : ''}${missing} is required`;
      return `${where}${path ? ` parameter ${path}` : ''} ${issue.message ?? 'is invalid'}`;
    })
    .join('');
}

/**
 * The one place errors become responses: `{statusCode, error, message}`, never a stack trace, and
 * no 5xx for anything a client can send.
 */
export function installErrorRendering(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      const status = STATUS_OF[error.code];
      if (error.retryAfterS !== undefined) reply.header('retry-after', String(error.retryAfterS));
      return reply.code(status).send(errorBody(status, error.message));
    }
    if (error.validation) return reply.code(400).send(errorBody(400, validationMessage(error)));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send(errorBody(status, error.message));
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody(500, 'internal error; the server log has the details'));
  });
  installNotFound(app);
}

const noop = () => undefined;

/**
 * Answers what the router does not: a known path asked with a method it does not take is a 405
 * naming the methods it does take (`Allow`), anything else a JSON 404. A second router holds the
 * routes' paths only, so "which methods does this path take" is answered by the same matching as
 * the real router's. Catch-all routes (the dashboard's `GET /*`, CORS's `OPTIONS *`) claim every
 * path and say nothing about it: they are left out.
 */
function installNotFound(app: FastifyInstance): void {
  const paths = Router({ ignoreTrailingSlash: true, maxParamLength: 200 });
  const methods = new Set<HTTPMethod>();
  app.addHook('onRoute', (route) => {
    if (route.url.endsWith('*')) return;
    for (const method of [route.method].flat().map((m) => m.toUpperCase() as HTTPMethod)) {
      if (paths.hasRoute(method, route.url)) continue;
      paths.on(method, route.url, noop);
      methods.add(method);
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = [...methods].filter((method) => paths.find(method, path) !== null);
    if (allowed.length > 0 && !allowed.includes(request.method as HTTPMethod)) {
      const allow = (allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed).sort().join(', ');
      return reply.code(405).header('allow', allow).send(errorBody(405, `${request.method} is not allowed on ${path}: use ${allow}`));
    }
    return reply.code(404).send(errorBody(404, `no route for ${request.method} ${path}`));
  });
}
