import { Type } from 'typebox';

export const DeviceSchema = Type.Object({
  id: Type.String(),
  serial: Type.String({ description: '<module serial>, or <module serial>/<index> behind a gateway' }),
  index: Type.Integer(),
  uid: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  active: Type.Boolean(),
  watched: Type.Boolean(),
  alerts: Type.Integer(),
  alerts_ack: Type.Integer(),
  losts: Type.Integer(),
  msgs: Type.Integer(),
  firstseen: Type.Optional(Type.String()),
  lastseen: Type.Optional(Type.String()),
  battery: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  level: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  network: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  tamper: Type.String({ enum: ['ON', 'OFF', 'UNKNOWN'] }),
  temp: Type.String({ enum: ['LOW', 'OK', 'HIGH', 'UNKNOWN'] }),
  status: Type.String(),
  type: Type.String(),
  bidirval: Type.Optional(Type.String()),
});

/** A child of the children operation: the device, and its newest message's fields when it has one. */
export const ChildSchema = Type.Object({
  ...DeviceSchema.properties,
  when: Type.Optional(Type.Integer({ description: 'the newest message’s when: snsr’s reception time, epoch ms' })),
  raw: Type.Optional(Type.String({ description: 'the newest message’s frame, hex' })),
  hr: Type.Optional(Type.String({ description: 'the newest message in words: its code and decoded values with units' })),
  lvl: Type.Optional(Type.String({ description: 'the newest message’s signal level (RSSI, dBm), decimal' })),
  station: Type.Optional(Type.String({ description: 'the base station that first heard the newest message' })),
});
