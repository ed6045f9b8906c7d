import { Type } from 'typebox';
import type { RawMessage } from '../../storage/raw-messages-repository.js';
import { decimal } from '../../wire/message.js';

const Json = Type.Object({}, { additionalProperties: true });

export const MessageSchema = Type.Object({
  when: Type.Integer({
    description:
      'the time snsr received the uplink, epoch ms, strictly increasing per module: poll recents with after = the newest when shown; the network’s time is extra.time',
  }),
  lvl: Type.String({ description: 'signal level (RSSI, dBm) as a decimal string' }),
  station: Type.String(),
  type: Type.String({ description: 'event:templow, keepalive:voltagetemp, …' }),
  device: Type.String({ description: 'serial of the device the message concerns' }),
  extra: Type.Object(
    {
      message: Type.String({ description: 'the frame, hex' }),
      time: Type.Integer({ description: 'the network’s time of the uplink, epoch s (the raw message’s time)' }),
    },
    { additionalProperties: true, description: 'the frame, the network’s time, and the values decoded from it (voltage_mv, temperature_c, …)' },
  ),
  contrib: Json,
  ctxt: Json,
  received: Type.Integer({ description: 'same as when, for older clients' }),
  payload: Type.String({ description: 'the frame, hex, for older clients' }),
});

export const RawMessageSchema = Type.Object({
  device: Type.String(),
  time: Type.Integer({ description: 'the network’s time of the uplink, epoch s' }),
  data: Type.String(),
  payload: Type.String({ description: 'same as data, for the Android client' }),
  snr: Type.String({ description: 'best SNR of every base station so far' }),
  seqNumber: Type.Optional(Type.Integer()),
  rinfos: Type.Array(Type.Object({ tap: Type.String(), snr: Type.String(), rssi: Type.String() })),
});

export function presentRawMessage(raw: RawMessage) {
  return {
    device: raw.module_serial,
    time: raw.time_s,
    data: raw.data,
    payload: raw.data,
    snr: decimal(raw.snr),
    ...(raw.seq_number !== null && { seqNumber: raw.seq_number }),
    rinfos: raw.rinfos.map((r) => ({ tap: r.tap, snr: decimal(r.snr), rssi: decimal(r.rssi) })),
  };
}
