import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import type { Server } from '../../server-types.js';
import { DELIVERY_STATUSES, MAX_LIMIT } from '../../../domain/deliveries.js';
import { DeliverySchema, presentDelivery } from '../../presenters/deliveries.js';
import { Basic, responses, RowId } from '../../schemas.js';

const AppPath = Type.Object({ idApp: RowId() });
const DeliveryPath = Type.Object({ idApp: RowId(), id: RowId() });
const LogQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'default 20' })),
  before: Type.Optional(RowId({ description: 'a delivery id: only older deliveries (the next page)' })),
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
});

/** The delivery log of an app's callbacks, and re-queueing a failed one. */
export async function deliveryRoutes(app: Server, context: Context): Promise<void> {
  app.get('/apps/:idApp/deliveries.json', {
    schema: {
      tags: ['developer'],
      summary: "An app's callback deliveries, newest first",
      security: Basic,
      params: AppPath,
      querystring: LogQuery,
      response: responses(Type.Array(DeliverySchema), 400, 401, 404),
    },
    handler: async (request) => (await context.deliveries.list(request.account.id, request.params.idApp, request.query)).map(presentDelivery),
  });

  app.post('/apps/:idApp/deliveries/:id/retry.json', {
    config: { audit: { action: 'delivery.retry', detail: (request) => ({ app: (request.params as { idApp: number }).idApp, delivery: (request.params as { id: number }).id }) } },
    schema: {
      tags: ['developer'],
      summary: 'Queue a failed delivery again, from its first attempt',
      security: Basic,
      params: DeliveryPath,
      response: responses(DeliverySchema, 400, 401, 404, 409),
    },
    handler: async (request) => presentDelivery(await context.deliveries.retry(request.account.id, request.params.idApp, request.params.id)),
  });
}
