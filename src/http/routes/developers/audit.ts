import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import type { AuditEntry } from '../../../domain/types.js';
import { AUDIT_MAX_LIMIT } from '../../../domain/audit.js';
import { Basic, responses, RowId } from '../../schemas.js';

const EntrySchema = Type.Object({
  id: Type.Integer(),
  action: Type.String({ description: 'e.g. signin, signin.failed, key.create, app.update, module.register, delivery.retry' }),
  at: Type.Integer({ description: 'epoch ms' }),
  credential: Type.Union([Type.String(), Type.Null()], { description: 'session, password, token, key, link (an emailed link) or operator (the CLI)' }),
  key: Type.Optional(Type.String({ description: "the API key's name, when credential is key" })),
  address: Type.Union([Type.String(), Type.Null()], { description: 'client address' }),
  detail: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_MAX_LIMIT, description: 'default 20' })),
  before: Type.Optional(RowId({ minimum: 1, description: 'an entry id: only older entries (the next page)' })),
});

const presentEntry = (entry: AuditEntry) => ({
  id: entry.id,
  action: entry.action,
  at: entry.at.getTime(),
  credential: entry.credential,
  ...(entry.keyName !== null && { key: entry.keyName }),
  address: entry.address,
  ...(entry.detail !== null && { detail: entry.detail }),
});

/** The account's audit log, newest first. */
export async function auditRoutes(app: Server, context: Context): Promise<void> {
  app.get('/audit.json', {
    schema: { tags: ['developer'], summary: "The account's audit log, newest first", security: Basic, querystring: Query, response: responses(Type.Array(EntrySchema), 400, 401, 404) },
    handler: async (request) => (await context.audit.list(request.account.id, request.query)).map(presentEntry),
  });
}
