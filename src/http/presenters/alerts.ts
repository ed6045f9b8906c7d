import { Type } from 'typebox';
import { ALERT_KINDS } from '../../domain/alerts.js';

const EpochMsOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

/** The wire form itself is built by `wire/alert.ts`, shared with callbacks, the stream and MQTT. */
export const AlertSchema = Type.Object({
  id: Type.Integer(),
  module: Type.String({ description: 'module serial' }),
  device: Type.String({ description: 'device serial: the module, or a child <serial>/<index>' }),
  name: Type.Union([Type.String(), Type.Null()], { description: 'the name the owner gave the device (null: unnamed), as it is now' }),
  kind: Type.Enum([...ALERT_KINDS]),
  message: Type.String({ description: 'what happened, in words' }),
  when: Type.Integer({ description: 'raised at, epoch ms (the time of the uplink, or of the watchdog pass)' }),
  message_id: Type.Union([Type.Integer(), Type.Null()], { description: 'the message whose frame raised it; null for lost contact' }),
  ended: EpochMsOrNull('when the condition ended (the "OK" event, or the next uplink), epoch ms'),
  end_message: Type.Union([Type.String(), Type.Null()]),
  acked: EpochMsOrNull('when the owner acknowledged it, epoch ms'),
});
