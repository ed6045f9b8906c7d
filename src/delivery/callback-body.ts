import type { Alert } from '../domain/alerts.js';
import type { MessageRow } from '../storage/schema.js';
import { presentAlert } from '../wire/alert.js';
import { messageBody } from '../wire/message.js';
import type { DeliverySubject } from './delivery-claims.js';

/**
 * The callback body of the contract: the decode structure of the message (as the decode operation
 * answers it), the message as history returns it, and who it concerns. Built from stored columns
 * only, so every attempt of a delivery sends the same bytes: the message's stored wire text (`body`,
 * written once at ingest) goes in as it is, the stored `custom` JSON too.
 */
export function callbackBody(message: MessageRow, deviceSerial: string, appId: number): string {
  const extra = JSON.stringify({ entry_id: message.entry_id, frame_type: message.frame_type, code: message.code });
  const custom = message.custom.trim() === '' ? '{}' : message.custom.trim();
  return (
    `{"msg":{"extra":${extra},"custom":${custom}},"message":${message.body ?? messageBody(message, deviceSerial)},` +
    `"module":${JSON.stringify(message.module_serial)},"device":${JSON.stringify(deviceSerial)},"app":${appId}}`
  );
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
