import type { Alert } from '../domain/alerts.js';
import type { MessageRow } from '../storage/schema.js';
import { presentAlert } from '../wire/alert.js';
import { presentMessage } from '../wire/message.js';
import type { DeliverySubject } from './delivery-claims.js';

/**
 * The callback body of the contract: the decode structure of the message (as the decode operation
 * answers it), the message as history returns it, and who it concerns. Built from stored columns
 * only, so every attempt of a delivery sends the same bytes.
 */
export function callbackBody(message: MessageRow, deviceSerial: string, appId: number): string {
  return JSON.stringify({
    msg: {
      extra: { entry_id: message.entry_id, frame_type: message.frame_type, code: message.code },
      custom: JSON.parse(message.custom) as Record<string, unknown>,
    },
    message: presentMessage(message, deviceSerial),
    module: message.module_serial,
    device: deviceSerial,
    app: appId,
  });
}

/**
 * The callback body of an alert: a `type` message callbacks do not have (their body is the contract's
 * and stays as it is), the alert as the API presents it, and who it concerns. Built from the stored
 * alert when sent: a retry after the alarm ended shows it ended.
 */
export function alertCallbackBody(alert: Alert, appId: number): string {
  return JSON.stringify({ type: 'alert', alert: presentAlert(alert), module: alert.moduleSerial, device: alert.deviceSerial, app: appId });
}

/** The body of a claimed delivery, whichever it carries. */
export function deliveryBody(subject: DeliverySubject, appId: number): string {
  return subject.kind === 'alert' ? alertCallbackBody(subject.alert, appId) : callbackBody(subject.message, subject.deviceSerial, appId);
}
