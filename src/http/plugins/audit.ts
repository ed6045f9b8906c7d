import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { AuditAction } from '../../domain/audit.js';
import type { Account } from '../../domain/types.js';
import type { Server } from '../server-types.js';

/**
 * A route's audit declaration, in its `config`: `audit: 'app.delete'`, or an object when the
 * action depends on the request, a failure is worth recording, or the entry should say more.
 */
export interface AuditDeclaration {
  action: AuditAction | ((request: FastifyRequest) => AuditAction);
  /** Recorded when the route answers 401 (a wrong password) for an account it could name. */
  failure?: AuditAction;
  /** The account's email when the request is not authenticated yet (sign-in), for failures. */
  subject?: (request: FastifyRequest) => string | undefined;
  /** What the entry says beside the action; gets the JSON answer. Default: the path parameters and `id`/`sn`. */
  detail?: (request: FastifyRequest, answer: unknown) => Record<string, unknown> | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: AuditAction | AuditDeclaration;
  }
}

function defaultDetail(request: FastifyRequest): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = typeof request.body === 'object' && request.body !== null && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};
  const detail: Record<string, unknown> = { ...(request.params as Record<string, unknown> | undefined) };
  for (const name of ['id', 'sn']) {
    const value = query[name] ?? body[name];
    if (value !== undefined) detail[name] = value;
  }
  return detail;
}

function parsed(payload: unknown): unknown {
  if (typeof payload !== 'string' || payload === '') return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/**
 * Writes the account's audit entry for every route that declares one, once the answer is known
 * and before it is sent: a client that saw the answer finds the entry. Success is any status
 * below 400; a declared failure is recorded on 401. Routes stay free of audit code.
 */
export async function auditPlugin(app: Server, context: Context): Promise<void> {
  const accountIdOf = async (request: FastifyRequest, declaration: AuditDeclaration): Promise<number | undefined> => {
    const account = request.account as Account | undefined;
    if (account) return account.id;
    const email = declaration.subject?.(request);
    return email ? (await context.repositories.accounts.byEmail(email))?.id : undefined;
  };

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const declared = request.routeOptions.config.audit;
    if (!declared) return payload;
    const declaration: AuditDeclaration = typeof declared === 'string' ? { action: declared } : declared;
    let action: AuditAction | undefined;
    if (reply.statusCode < 400) action = typeof declaration.action === 'function' ? declaration.action(request) : declaration.action;
    else if (reply.statusCode === 401 && declaration.failure) action = declaration.failure;
    if (!action) return payload;
    try {
      const accountId = await accountIdOf(request, declaration);
      if (accountId === undefined) return payload;
      const detail = declaration.detail ? declaration.detail(request, parsed(payload)) : defaultDetail(request);
      await context.audit.record({ accountId, action, actor: request.credential, address: request.ip, detail });
    } catch (error) {
      request.log.error({ err: error, action }, 'audit entry not recorded');
    }
    return payload;
  });
}
