import { STATUS_CODES } from 'node:http';
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
      return reply.code(status).send(errorBody(status, error.message));
    }
    if (error.validation) return reply.code(400).send(errorBody(400, validationMessage(error)));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.code(status).send(errorBody(status, error.message));
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody(500, 'internal error; the server log has the details'));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody(404, `no route for ${request.method} ${request.url.split('?')[0]}`));
  });
}
