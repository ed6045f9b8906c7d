import { Type } from 'typebox';
import type { Context } from '../../../context.js';
import { MAX_LIMIT, MAX_PERIOD_S, MIN_PERIOD_S } from '../../../domain/alerts.js';
import { presentAlert } from '../../../wire/alert.js';
import type { Server } from '../../server-types.js';
import { AlertSchema } from '../../presenters/alerts.js';
import { input, optionalInteger, optionalString } from '../../params.js';
import { Basic, Empty, responses, RowId } from '../../schemas.js';

const ListQuery = Type.Object({
  sn: Type.Optional(Type.String({ description: "a module's serial: only its alerts (its own and its children's)" })),
  open: Type.Optional(Type.Boolean({ description: 'only alerts whose condition has not ended' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'default 20' })),
  before: Type.Optional(RowId({ description: 'an alert id: only older alerts (the next page)' })),
});
const AckParams = Type.Object({
  sn: Type.Optional(Type.String({ description: "a device's serial (the module's, or a child's <serial>/<index>): acknowledges all its alerts" })),
  id: Type.Optional(Type.String({ description: 'an alert id: acknowledges that one alert' })),
});
const PeriodParams = Type.Object({
  sn: Type.Optional(Type.String({ description: "a module's serial: the period of its watched devices" })),
  app: Type.Optional(Type.String({ description: 'an app id: the period of the watched devices of every module attached to it' })),
  period: Type.Optional(Type.String({ description: `seconds (${MIN_PERIOD_S} to ${MAX_PERIOD_S}); empty clears it` })),
});
const AckAnswer = Type.Object({
  device: Type.String(),
  acknowledged: Type.Integer({ description: 'alerts acknowledged by this call' }),
  alerts: Type.Integer({ description: "the device's alerts raised so far" }),
  alerts_ack: Type.Integer({ description: 'of those, acknowledged' }),
});

/** Alerts of watched devices: listed per account or per module, acknowledged per device or one by one. */
export async function alertRoutes(app: Server, context: Context): Promise<void> {
  app.get('/alerts.json', {
    schema: {
      tags: ['developer'],
      summary: "The account's alerts, newest first",
      security: Basic,
      querystring: ListQuery,
      response: responses(Type.Array(AlertSchema), 400, 401, 404),
    },
    handler: async (request) => (await context.alerts.list(request.account.id, request.query)).map(presentAlert),
  });

  app.post('/alerts/ack.json', {
    config: { audit: 'alert.ack' },
    schema: {
      tags: ['developer'],
      summary: "Acknowledge a device's alerts (sn) or one alert (id): the device's alerts_ack catches up",
      security: Basic,
      querystring: AckParams,
      body: Type.Optional(AckParams),
      response: responses(AckAnswer, 400, 401, 404),
    },
    handler: async (request) => {
      const values = input(request);
      const id = optionalInteger(values, 'id');
      const sn = optionalString(values, 'sn');
      const { device, acknowledged } = await context.alerts.acknowledge(request.account.id, { ...(id !== undefined && { id }), ...(sn !== undefined && { sn }) });
      const after = await context.repositories.devices.byId(device.id);
      return { device: device.serial, acknowledged, alerts: after?.alerts ?? device.alerts, alerts_ack: after?.alertsAck ?? device.alertsAck };
    },
  });

  app.post('/alerts/period.json', {
    config: { audit: 'alert.settings' },
    schema: {
      tags: ['developer'],
      summary: "Set the lost-contact watchdog's expected period of a module's (sn) or an app's (app) watched devices",
      description: "Used when a device's keep-alives do not announce their interval: the module's period first, then the smallest of its apps'.",
      security: Basic,
      querystring: PeriodParams,
      body: Type.Optional(PeriodParams),
      response: responses(Empty, 400, 401, 404),
    },
    handler: async (request) => {
      const values = input(request);
      const sn = optionalString(values, 'sn');
      const app = optionalInteger(values, 'app');
      const period = optionalInteger(values, 'period') ?? null;
      await context.alerts.setPeriod(request.account.id, { ...(sn !== undefined && { sn }), ...(app !== undefined && { app }) }, period);
    },
  });
}
