import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, decode, type Protocol } from '../../../src/protocol/udm/index.js';

const HEX_FRAME = /^(?:[0-9A-Fa-f]{2}){2,12}$/;

describe.each(PROTOCOLS)('decode under %s', (p) => {
  it('never throws on arbitrary strings, and rejects those that are not 2..12 bytes of hex (rule 1)', () => {
    const strings = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFZ ') }));
    fc.assert(
      fc.property(strings, (s) => {
        const result = decode(s, p);
        if (!HEX_FRAME.test(s)) expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('rule 1') });
      }),
      { numRuns: 5000 },
    );
  });

  it('never throws on arbitrary bytes; a rejection always names its reason', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 16 }), (bytes) => {
        const result = decode(bytes, p);
        if (bytes.length < 2 || bytes.length > 12) expect(result.ok).toBe(false);
        if (!result.ok) expect(result.reason).toMatch(/ \((9\.2 rule \d+|section \d+|snsr policy)\)$/);
      }),
      { numRuns: 5000 },
    );
  });

  it('gives the same answer for hex in any case and for the bytes themselves', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 12 }), fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex');
        const mixed = Array.from(hex, (c, i) => (upper[i] ? c.toUpperCase() : c)).join('');
        const expected = decode(bytes, p);
        expect(decode(hex, p)).toStrictEqual(expected);
        expect(decode(hex.toUpperCase(), p)).toStrictEqual(expected);
        expect(decode(mixed, p)).toStrictEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decode', () => {
  it('keeps nothing of its input: a result survives later calls', () => {
    const first = decode('0004DEADBEEF', 'UDM23');
    const copy = structuredClone(first);
    decode('0004CAFEBABE0000', 'UDM23');
    expect(first).toStrictEqual(copy);
  });

  it('returns ok:false, without throwing, on a wrong protocol or a non-frame at run time', () => {
    expect(decode('00000046', 'udm23' as Protocol)).toMatchObject({ ok: false, reason: expect.stringContaining('protocol') });
    for (const junk of [null, undefined, 42, {}, ['00', '00']]) {
      expect(decode(junk as unknown as string, 'UDM23').ok).toBe(false);
    }
  });

  it('names the rule broken', () => {
    expect(decode('000020', 'UDM22')).toStrictEqual({ ok: false, reason: 'event code 0x20 is not defined in UDM22 (9.2 rule 7)' });
    expect(decode('0Z000046', 'UDM23')).toStrictEqual({ ok: false, reason: '"Z" at position 1 is not a hex digit (9.2 rule 1)' });
  });
});
