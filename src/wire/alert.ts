import type { Alert } from '../domain/alerts.js';

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/**
 * An alert as every channel shows it — the developer API, callbacks, the live stream and MQTT —
 * built in one place below both http and the integrations: snake_case, times in epoch ms.
 */
export function presentAlert(alert: Alert) {
  return {
    id: alert.id,
    module: alert.moduleSerial,
    device: alert.deviceSerial,
    name: alert.deviceName,
    kind: alert.kind,
    message: alert.message,
    when: alert.raised.getTime(),
    message_id: alert.messageId,
    ended: ms(alert.ended),
    end_message: alert.endMessage,
    acked: ms(alert.acked),
  };
}

export type AlertWire = ReturnType<typeof presentAlert>;
