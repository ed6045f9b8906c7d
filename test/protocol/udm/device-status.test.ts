import { expect, it } from 'vitest';
import { decode, statusUpdate, type Frame } from '../../../src/protocol/udm/index.js';

const frame = (hex: string): Frame => {
  const result = decode(hex, 'UDM23');
  if (!result.ok) throw new Error(result.reason);
  return result.frame;
};

it.each([
  ['00000046', { entryId: 0, field: 'battery', value: 'OFF' }],
  ['1310018D', { entryId: 1, field: 'battery', value: 'ON' }],
  ['47000202', { entryId: 2, field: 'network', value: 'OFF' }], // about child 2, sent by the gateway
  ['50000504', { entryId: 4, field: 'level', value: 'ON' }],
  ['25000632', { entryId: 0, field: 'temp', value: 'LOW' }],
  ['000007FF', { entryId: 0, field: 'temp', value: 'HIGH' }],
  ['00000864', { entryId: 0, field: 'temp', value: 'OK' }],
  ['00300A23', { entryId: 3, field: 'tamper', value: 'ON' }],
  ['00000B23', { entryId: 0, field: 'tamper', value: 'OFF' }],
  ['003300189167', { entryId: 3, field: 'network', value: 'ON' }],
])('%s sets %o (section 10)', (hex, update) => {
  expect(statusUpdate(frame(hex))).toStrictEqual(update);
});

it.each(['000009', '0004DEADBEEF', '000080', '001223010200050001ABCD'])('%s changes no status', (hex) => {
  expect(statusUpdate(frame(hex))).toBeUndefined();
});
