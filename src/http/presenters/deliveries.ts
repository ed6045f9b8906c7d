import { Type } from 'typebox';
import { DELIVERY_STATUSES } from '../../domain/deliveries.js';
import type { Delivery } from '../../domain/deliveries.js';

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());
const EpochMsOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const DeliverySchema = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ description: 'sent as X-Snsr-Delivery, the same on every attempt' }),
  message_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the message delivered; null for an alert' }),
  when: Type.Integer({ description: "the message's time, or when the alert was raised, epoch ms" }),
  status: Type.Enum([...DELIVERY_STATUSES]),
  attempts: Type.Integer({ description: 'requests made so far' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'why the last attempt failed: "HTTP 500", "timeout after 5000 ms", …' }),
  next_attempt: EpochMsOrNull('when a pending delivery is due, epoch ms'),
  created: Type.Integer({ description: 'epoch ms' }),
  delivered: EpochMsOrNull('epoch ms'),
  kind: Type.Union([Type.Literal('message'), Type.Literal('alert')], { description: 'what the callback carried: a message, or an alert (a body of type "alert")' }),
  alert_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the alert delivered; null for a message' }),
});

/** The delivery log's wire form: snake_case, times in epoch ms. */
export function presentDelivery(delivery: Delivery) {
  return {
    id: delivery.id,
    uuid: delivery.uuid,
    message_id: delivery.messageId,
    when: delivery.when.getTime(),
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt: ms(delivery.nextAttempt),
    created: delivery.created.getTime(),
    delivered: ms(delivery.delivered),
    kind: delivery.kind,
    alert_id: delivery.alertId,
  };
}
