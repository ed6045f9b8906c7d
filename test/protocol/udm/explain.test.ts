import { describe, expect, it } from 'vitest';
import { explain, formatExplain } from '../../../src/protocol/udm/index.js';

describe('explain', () => {
  it('V1: every header field, the event code and the V23 voltage, with offsets and raw bits', () => {
    const result = explain('00000046', 'UDM23');
    expect(result.result.ok).toBe(true);
    expect(result.fields.map((f) => [f.name, f.offset, f.bits, f.raw])).toStrictEqual([
      ['retry', 0, 'b0.7', '0'],
      ['stamp', 0, 'b0.6-4', '000'],
      ['cpt', 0, 'b0.3-0', '0000'],
      ['entry_id', 1, 'b1.7-4', '0000'],
      ['frame type', 1, 'b1.3-0', '0000'],
      ['event code', 2, 'b2.7-0', '00000000'],
      ['voltage', 3, 'b3.7-0', '01000110'],
    ]);
    expect(result.fields.at(-1)?.meaning).toBe('(70 + 185) × 10 = 2550 mV');
    expect(result.fields[5].meaning).toBe('0x00 = event_battery_low');
  });

  it('V23: the GPS bit-stream fields straddle byte boundaries', () => {
    const fields = explain('00010100202AC5B3FC801118', 'UDM23').fields;
    const byName = (name: string) => fields.find((f) => f.name === name);
    expect(byName('gps type')).toMatchObject({ offset: 3, bits: 'b3.7-4', raw: '0000', meaning: '0 = XYZ_SV_HDOP' });
    expect(byName('position')).toMatchObject({ offset: 3, bits: 'b3.3-b9.4', bitLength: 48, meaning: "lon 2°21.050', lat 48°51.400'" });
    expect(parseInt(byName('position')?.raw ?? '', 2)).toBe(0x0202ac5b3fc8);
    expect(byName('altitude')).toMatchObject({ bits: 'b9.3-b10.0', raw: '000000010001', meaning: '17 × 2 m' });
    expect(byName('satellites')).toMatchObject({ bits: 'b11.4-2', raw: '110' });
    expect(fields.at(-1)).toMatchObject({ name: 'hdop class', bits: 'b11.1-0', raw: '00' });
  });

  it('an invalid frame: the fields read up to the broken rule, and the reason', () => {
    const result = explain('000020', 'UDM22');
    expect(result.result).toStrictEqual({ ok: false, reason: 'event code 0x20 is not defined in UDM22 (9.2 rule 7)' });
    expect(result.fields.map((f) => f.name)).toStrictEqual(['retry', 'stamp', 'cpt', 'entry_id', 'frame type', 'event code']);
    expect(explain('0Z', 'UDM22').fields).toStrictEqual([]);
  });

  it('notes bytes the decoder tolerates but ignores', () => {
    expect(explain('0000004600', 'UDM23').fields.at(-1)).toMatchObject({ name: 'ignored', offset: 4, bits: 'b4.7-0' });
  });

  it('formats an aligned table between a verdict line and the decode answer', () => {
    const text = formatExplain(explain('00000046', 'UDM23'));
    const lines = text.split('\n');
    expect(lines[0]).toBe('UDM23 00000046: valid: event frame, code event_battery_low');
    expect(lines).toContain('  b3.7-0  01000110  voltage     (70 + 185) × 10 = 2550 mV');
    expect(lines.at(-1)).toBe(
      'decode: {"msg":{"extra":{"entry_id":0,"frame_type":"srv_frm_event","code":"event_battery_low"},"custom":{"voltage_mv":2550}}}',
    );
    const gps = formatExplain(explain('00010100202AC5B3FC801118', 'UDM23'));
    expect(gps).toMatch(/b3\.3-b9\.4 +0x0202AC5B3FC8 +position/);
    expect(formatExplain(explain('', 'UDM23'))).toBe(
      'UDM23 (empty): invalid: 0 bytes; a UDM frame has 2..12 (9.2 rule 1)\ndecode: {}',
    );
  });
});
