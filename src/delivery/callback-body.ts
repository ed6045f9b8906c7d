import type { MessageRow } from '../storage/schema.js';
import { presentMessage } from '../wire/message.js';

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
