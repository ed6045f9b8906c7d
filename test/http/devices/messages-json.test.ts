import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { messagesJson, presentMessage } from '../../../src/wire/message.js';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 });

const row = fc.record({
  when_ms: fc.integer({ min: 0, max: 2 ** 45 }),
  time_s: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  lvl: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
  station: fc.string(),
  type: fc.string(),
  frame: fc.string(),
  device_serial: fc.string(),
  // Stored as JSON text, compact as ingestion writes it or padded as a hand edit might leave it.
  custom: fc.tuple(jsonObject, fc.boolean()).map(([o, pad]) => (pad ? ` ${JSON.stringify(o, null, 1)} ` : JSON.stringify(o))),
  contrib: jsonObject.map((o) => JSON.stringify(o)),
  ctxt: jsonObject.map((o) => JSON.stringify(o)),
});

describe('messagesJson', () => {
  it('is the JSON text of presentMessage for every page of messages', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
        const text = messagesJson(rows);
        expect(JSON.parse(text)).toEqual(rows.map((r) => presentMessage(r, r.device_serial)));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the member order clients see and writes an empty page as []', () => {
    expect(messagesJson([])).toBe('[]');
    const text = messagesJson([
      { when_ms: 5, time_s: 1_700_000_000, lvl: -120.5, station: '1B2C', type: 'event:templow', frame: '25000632', device_serial: 'C0FE/1', custom: '{"temperature_c":-5}', contrib: '{"temp":"LOW"}', ctxt: '{}' },
    ]);
    expect(text).toBe(
      '[{"when":5,"lvl":"-120.5","station":"1B2C","type":"event:templow","device":"C0FE/1","extra":{"message":"25000632","time":1700000000,"temperature_c":-5},' +
        '"contrib":{"temp":"LOW"},"ctxt":{},"received":5,"payload":"25000632"}]',
    );
  });
});
