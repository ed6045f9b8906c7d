import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { badRequest } from '../../../domain/errors.js';
import type { RetrySelection } from '../../../domain/webhooks.js';
import { input, jsonParameter, requiredInteger, withinBatch } from '../../params.js';
import type { Input } from '../../params.js';
import { presentTestCallback, presentWebhookHealth, TestCallbackSchema, WebhookHealthSchema } from '../../presenters/webhooks.js';
import { Basic, responses, RowId } from '../../schemas.js';

const IdParam = Type.Object({ id: Type.Optional(Type.String({ description: 'app id' })) });
const AppPath = Type.Object({ idApp: RowId() });
const RetryParams = Type.Object({
  ids: Type.Optional(Type.Union([Type.Array(RowId()), Type.String()], { description: 'delivery ids: a JSON array, or "1,2,3"' })),
  all_failed: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: 'true: every failed delivery of the app' })),
});

/** `ids` as a JSON array, JSON text or comma-separated; `all_failed` as true, "true" or "1". */
function retrySelection(params: Input, max: number): RetrySelection {
  const flag = params.all_failed;
  if (flag !== undefined && flag !== true && flag !== false && !['true', 'false', '1', '0', ''].includes(String(flag))) throw badRequest('all_failed must be true or false');
  const allFailed = flag === true || flag === 'true' || flag === '1';
  let ids = params.ids;
  if (typeof ids === 'string') ids = ids.trim().startsWith('[') ? jsonParameter(ids, 'ids', 'a JSON array of delivery ids') : ids.split(',').filter((part) => part.trim() !== '').map(Number);
  if (ids === undefined || ids === null || ids === '') return { allFailed };
  if (!Array.isArray(ids)) throw badRequest('ids must be a list of delivery ids');
  withinBatch(ids, 'ids', max);
  return { allFailed, ids: ids as number[] };
}

/** Webhook health, test callbacks and bulk retry of an app's failed deliveries. */
export async function webhookRoutes(app: Server, context: Context): Promise<void> {
  const maxBatch = context.config.limits.maxBatch;

  app.get('/apps/health.json', {
    schema: {
      tags: ['developer'],
      summary: "An app's webhook health over the last day: success rate, last error, latency p50/p95",
      security: Basic,
      querystring: IdParam,
      response: responses(WebhookHealthSchema, 400, 401, 404),
    },
    handler: async (request) => presentWebhookHealth(await context.webhooks.health(request.account.id, requiredInteger(request.query as Input, 'id'))),
  });

  app.post('/apps/test.json', {
    config: { audit: { action: 'app.test', detail: (request, answer) => ({ id: Number((request.query as Input).id ?? (request.body as Input | undefined)?.id), ok: (answer as { ok?: boolean } | undefined)?.ok }) } },
    schema: {
      tags: ['developer'],
      summary: 'Send a signed test callback ("type": "test") to the app\'s callbackurl now and answer how it went',
      security: Basic,
      querystring: IdParam,
      body: Type.Optional(IdParam),
      response: responses(TestCallbackSchema, 400, 401, 404, 409),
    },
    handler: async (request) => presentTestCallback(await context.webhooks.sendTest(request.account.id, requiredInteger(input(request), 'id'))),
  });

  app.post('/apps/:idApp/deliveries/retry.json', {
    config: { audit: { action: 'delivery.retry_many', detail: (request, answer) => ({ app: (request.params as { idApp: number }).idApp, requeued: (answer as { requeued?: number } | undefined)?.requeued }) } },
    schema: {
      tags: ['developer'],
      summary: 'Queue failed deliveries again: those listed in ids, or every failed one with all_failed=true',
      security: Basic,
      params: AppPath,
      body: Type.Optional(RetryParams),
      response: responses(Type.Object({ requeued: Type.Integer({ description: 'failed deliveries queued again' }) }), 400, 401, 404, 413),
    },
    handler: async (request) => ({ requeued: await context.webhooks.retryFailed(request.account.id, request.params.idApp, retrySelection(input(request), maxBatch)) }),
  });
}
