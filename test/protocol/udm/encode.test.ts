import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOLS, decode, encode, type CustomValues, type Frame, type FrameTypeName, type Protocol } from '../../../src/protocol/udm/index.js';
import { frames, gpsFrameBytes } from './arbitraries.js';

const hexOf = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex').toUpperCase();
const frameOf = (type: FrameTypeName, code: string, custom: CustomValues, entryId = 0): Frame => ({
  header: { retry: false, stamp: 0, cpt: 0, entryId, type },
  code,
  custom,
});

describe.each(PROTOCOLS)('round trip under %s', (p) => {
  it('decode(encode(f)) deep-equals f for generated frames of every type', () => {
    fc.assert(
      fc.property(frames(p), (f) => {
        const bytes = encode(f, p);
        expect(bytes.length).toBeGreaterThanOrEqual(2);
        expect(bytes.length).toBeLessThanOrEqual(12);
        expect(decode(bytes, p)).toStrictEqual({ ok: true, frame: f });
      }),
      { numRuns: 3000 },
    );
  });

  it('GPS frames in all five encodings, fix or not, re-encode to the same decoded values', () => {
    fc.assert(
      fc.property(gpsFrameBytes, (bytes) => {
        const first = decode(bytes, p);
        if (!first.ok) throw new Error(`generated GPS frame ${hexOf(bytes)} is invalid: ${first.reason}`);
        expect(decode(encode(first.frame, p), p)).toStrictEqual(first);
      }),
      { numRuns: 3000 },
    );
  });

  it('any frame that decodes re-encodes to a frame that decodes the same', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 12 }), (bytes) => {
        const first = decode(bytes, p);
        if (first.ok) expect(decode(encode(first.frame, p), p)).toStrictEqual(first);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('encode', () => {
  it('writes the exact bytes of the spec examples', () => {
    expect(hexOf(encode(frameOf('data', 'data_phone', { slot: 1, phone: '0601020304' }), 'UDM22'))).toBe('0001004190D7D223');
    expect(hexOf(encode(frameOf('event', 'event_battery_low', { voltage_mv: 2550 }), 'UDM23'))).toBe('00000046');
    const header = { retry: true, stamp: 2, cpt: 6, entryId: 0, type: 'event' as const };
    expect(hexOf(encode({ header, code: 'event_temp_low', custom: { temperature_c: -5 } }, 'UDM23'))).toBe('A6000632');
  });

  it('rounds measurements to the nearest step the frame can carry', () => {
    const bytes = encode(frameOf('keepalive', 'keepalive_voltage_temp', { interval_h: 24, voltage_mv: 3304, temperature_c: 21.7 }), 'UDM23');
    expect(hexOf(bytes)).toBe('000300189167');
  });

  it('picks the GPS layout from the keys: date → XY_DATE, altitude/satellites/hdop → XYZ_SV_HDOP, else the smallest exact XY', () => {
    const gps = (custom: CustomValues) => hexOf(encode(frameOf('data', 'data_gps', custom), 'UDM23'));
    expect(gps({ fix: true, latitude: 9.9995678, longitude: 19.9971219 })).toBe('0001014071A8E310'); // XY_300M
    expect(gps({ fix: true, latitude: -33.8688, longitude: 151.209285 })).toBe('000101257ED006B509E0'); // XY_1M
    expect(gps({ fix: false })).toBe('00010143FFFFFFF0');
    expect(gps({ fix: false, satellites: 3, hdop_class: 3 })).toBe('0001010FFFFFFFFFFFFFFFEF');
    // A position on no grid goes out as XY_1M, rounded to the nearest step.
    expect(decode(gps({ latitude: 48.8566, longitude: 2.3522 }), 'UDM23')).toMatchObject({
      ok: true,
      frame: { custom: { fix: true, latitude: 48.8565972, longitude: 2.3522075 } },
    });
  });

  it('re-encodes garbage GPS minutes ≥ 60 even where the canonical code would overflow its field', () => {
    // lon 281°47.497', lat 66°99.999' (= 67°39.999', which no longer fits under 2^48 beside that longitude)
    // and lon 280°99.999', lat 99°99.999' (= 100°39.999', more than the 7-digit latitude code holds).
    for (const hex of ['0001010FFFFFFFFD65F00000', '0001010FF91692E8FFF00000']) {
      const first = decode(hex, 'UDM23');
      expect(first.ok).toBe(true);
      if (first.ok) expect(decode(encode(first.frame, 'UDM23'), 'UDM23')).toStrictEqual(first);
    }
    // The first has only one encoding that fits: the very same bytes.
    const first = decode('0001010FFFFFFFFD65F00000', 'UDM23');
    if (first.ok) expect(hexOf(encode(first.frame, 'UDM23'))).toBe('0001010FFFFFFFFD65F00000');
  });

  const refusals: [string, Protocol, Frame][] = [
    ['a code of another frame type', 'UDM23', frameOf('data', 'event_boot', {})],
    ['an unknown code', 'UDM23', frameOf('event', 'event_explosion', {})],
    ['a custom event of UDM23 under UDM22', 'UDM22', frameOf('event', 'event_custom_26', {})],
    ['a key foreign to the frame', 'UDM23', frameOf('event', 'event_battery_low', { temperature_c: 20 })],
    ['a voltage out of the V23 range', 'UDM23', frameOf('event', 'event_battery_low', { voltage_mv: 5000 })],
    ['a missing child index', 'UDM23', frameOf('event', 'event_rssi_ok', {})],
    ['a port that is not a letter', 'UDM23', frameOf('event', 'event_switch_on', { port: '7', pin: 1 })],
    ['a custom cause without reset cause', 'UDM23', frameOf('event', 'event_boot', { custom_cause: 1 })],
    ['a P22 phone with 4 leading zeros', 'UDM22', frameOf('data', 'data_phone', { slot: 0, phone: '0000123' })],
    ['a P22 phone with a plus sign', 'UDM22', frameOf('data', 'data_phone', { slot: 0, phone: '+33601' })],
    ['a P23 phone of even length ending in a dot', 'UDM23', frameOf('data', 'data_phone', { slot: 0, phone: '1.' })],
    ['a P23 phone of 17 characters', 'UDM23', frameOf('data', 'data_phone', { slot: 0, phone: '12345678901234567' })],
    ['a PIN under UDM22', 'UDM22', frameOf('data', 'data_pin', { slot: 0, pin_code: '1234' })],
    ['a latitude beyond every layout', 'UDM23', frameOf('data', 'data_gps', { fix: true, latitude: 200, longitude: 0 })],
    ['a GPS fix with date and altitude', 'UDM23', frameOf('data', 'data_gps', { latitude: 1, longitude: 1, altitude_m: 0, month: 1, day: 1, hour: 0, minute: 0 })],
    ['a register with the wrong version', 'UDM23', frameOf('register', 'register', { version: '2.2', software_release: 0, device_class: 0, sigfox_id: '0000C0DE' })],
    ['a register with a bad Sigfox ID', 'UDM22', frameOf('register', 'register', { version: '2.2', device_class: 0, sigfox_id: 'C0DE' })],
    ['a PING under UDM22', 'UDM22', frameOf('ping', 'ping', { version: '2.2', device_class: 0, sigfox_id: '0000C0DE' })],
    ['an empty UDM22 SMS', 'UDM22', frameOf('service', 'service_sms', { text: '' })],
    ['a 10-character SMS', 'UDM23', frameOf('service', 'service_sms', { text: '0123456789' })],
    ['raw data over 10 bytes', 'UDM23', frameOf('raw', 'raw', { data: '00112233445566778899AA' })],
    ['raw data that is not hex', 'UDM23', frameOf('raw', 'raw', { data: 'XY' })],
    ['keep-alive custom bytes overflowing the frame', 'UDM23', frameOf('keepalive', 'keepalive_geoloc', { interval_h: 1, data: 'AABBCC' })],
    ['a UDM23 keep-alive code under UDM22', 'UDM22', frameOf('keepalive', 'keepalive_custom', { interval_h: 1 })],
    ['a stamp of 8', 'UDM23', { ...frameOf('raw', 'raw', {}), header: { retry: false, stamp: 8, cpt: 0, entryId: 0, type: 'raw' } }],
  ];
  it.each(refusals)('throws RangeError on %s', (_what, p, f) => {
    expect(() => encode(f, p)).toThrow(RangeError);
  });
});
