import type { DeliveryEventRow } from '../../storage/stream-events-repository.js';

/** What an attempt came to: sent and accepted, failed with a retry due, or failed for good. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

const outcome = (row: DeliveryEventRow): DeliveryOutcome => (row.status === 'delivered' ? 'delivered' : row.status === 'failed' ? 'failed' : 'retrying');

/**
 * The `delivery` event's data: one callback attempt's outcome, in the delivery log's spelling
 * (snake_case, epoch ms). `message_id` or `alert_id` names what was sent; the other is null.
 */
export function deliveryEventData(row: DeliveryEventRow) {
  return {
    id: row.id,
    uuid: row.uuid,
    app: row.app_id,
    module: row.module_serial,
    device: row.device_serial,
    message_id: row.message_id,
    alert_id: null as number | null,
    outcome: outcome(row),
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    latency_ms: row.last_latency_ms,
    next_attempt: row.status === 'pending' ? row.next_attempt_at : null,
    at: row.updated_at,
  };
}

export type DeliveryEventData = ReturnType<typeof deliveryEventData>;
