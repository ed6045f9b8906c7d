// fast-check generators of valid frames, written from the spec's formulas (not from the codec), in the
// canonical form decode produces: a custom key is present exactly when the payload carries its value.
import fc from 'fast-check';
import type { CustomValues, Frame, FrameTypeName, Protocol } from '../../../src/protocol/udm/index.js';

const byte = fc.integer({ min: 0, max: 255 });
const int = (max: number) => fc.integer({ min: 0, max });
const hex = (min: number, max: number) =>
  fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('hex').toUpperCase());
/** `{ key: value }` or `{}`. */
const maybe = <K extends keyof CustomValues>(key: K, arb: fc.Arbitrary<NonNullable<CustomValues[K]>>) =>
  fc.option(arb, { nil: undefined }).map((v): CustomValues => (v === undefined ? {} : { [key]: v }));
const maybeData = (max: number) => maybe('data', hex(1, max));

const v23 = byte.map((b) => (b + 185) * 10); // section 3.2
const t23 = byte.map((b) => b * 0.5 - 30);

const header = (type: FrameTypeName) =>
  fc.record({ retry: fc.boolean(), stamp: int(7), cpt: int(15), entryId: int(15) }).map((h) => ({ ...h, type }));
const frame = (type: FrameTypeName, code: fc.Arbitrary<string>, custom: fc.Arbitrary<CustomValues>): fc.Arbitrary<Frame> =>
  // fast-check records have a null prototype; frames from decode are plain objects.
  fc.tuple(header(type), code, custom).map(([h, c, values]) => ({ header: h, code: c, custom: { ...values } }));

function events(p: Protocol): fc.Arbitrary<Frame> {
  const ev = (name: string, custom: fc.Arbitrary<CustomValues>) => frame('event', fc.constant(`event_${name}`), custom);
  const none = fc.constant<CustomValues>({});
  const v23Only = <T>(arb: fc.Arbitrary<T>, other: fc.Arbitrary<T>) => (p === 'UDM23' ? arb : other);
  const child = fc.record({ child_index: byte });
  const lastCustom = p === 'UDM22' ? 152 : 164;
  return fc.oneof(
    ev('battery_low', v23Only(maybe('voltage_mv', v23), none)),
    ev('battery_ok', v23Only(maybe('voltage_mv', v23), fc.record({ level: byte }))),
    ...['connection_lost', 'connection_ok', 'rssi_low', 'rssi_ok'].map((name) => ev(name, child)),
    ...['temp_low', 'temp_high', 'temp_ok'].map((name) => ev(name, v23Only(maybe('temperature_c', t23), none))),
    ev('boot', fc.oneof(
      none,
      fc.record({ reset_cause: byte }),
      fc.record({ reset_cause: byte, custom_cause: byte }),
      fc.record({ reset_cause: byte, custom_cause: byte, data: hex(1, 7) }),
    )),
    ...['switch_on', 'switch_off'].map((name) =>
      ev(name, fc.record({ port: int(15).map((n) => String.fromCharCode(65 + n)), pin: int(15) }))),
    ev('accelero_move', maybeData(9)),
    frame('event', fc.integer({ min: 128, max: lastCustom }).map((c) => `event_custom_${c - 127}`), maybeData(9)),
  );
}

const P23_CHARS = '0123456789 ()+-.';
/** P23 text: up to 16 characters; an even-length one cannot end in '.', whose nibble reads as padding. */
const p23Text = fc
  .array(fc.constantFrom(...P23_CHARS), { maxLength: 16 })
  .map((cs) => cs.join(''))
  .filter((s) => s.length % 2 === 1 || !s.endsWith('.'));
/** P22: up to 3 leading zeros, then a number without leading zero that fits 7 bytes. */
const p22Phone = fc
  .tuple(int(3), fc.option(fc.bigInt({ min: 1n, max: 2n ** 56n - 1n }), { nil: undefined }))
  .map(([zeros, rest]) => '0'.repeat(zeros) + (rest === undefined ? '' : rest.toString()));

function data(p: Protocol): fc.Arbitrary<Frame> {
  const d = (code: string, custom: fc.Arbitrary<CustomValues>) => frame('data', fc.constant(code), custom);
  return fc.oneof(
    p === 'UDM22'
      ? d('data_phone', fc.record({ slot: int(63), phone: p22Phone }))
      : d('data_phone', fc.record({ slot: byte, phone: p23Text })),
    d('data_custom', maybeData(9)),
    ...(p === 'UDM23' ? [d('data_pin', fc.record({ slot: byte, pin_code: p23Text }))] : []),
  );
}

function keepalives(p: Protocol): fc.Arbitrary<Frame> {
  const ka = (code: string, custom: fc.Arbitrary<CustomValues>) => frame('keepalive', fc.constant(code), custom);
  if (p === 'UDM22') {
    const vtd = byte.map((b) => (b & 0x80 ? 3000 : 2000) + (b & 0x7f) * 10);
    return ka('keepalive', fc.oneof(
      fc.constant({}),
      fc.record({ voltage_mv: vtd, temperature_c: fc.integer({ min: -128, max: 127 }), interval_h: byte }),
    ));
  }
  const measures = fc.record({ interval_h: byte, voltage_mv: v23, temperature_c: t23 });
  const withData = (base: fc.Arbitrary<CustomValues>, max: number) =>
    fc.tuple(base, maybeData(max)).map(([a, b]) => ({ ...a, ...b }));
  return fc.oneof(
    ka('keepalive_voltage_temp', withData(measures, 6)),
    ka('keepalive_voltage_temp_geoloc', measures),
    ka('keepalive_geoloc', withData(fc.record({ interval_h: byte }), 2)),
    ka('keepalive_custom', withData(fc.record({ interval_h: byte }), 8)),
  );
}

function registrations(p: Protocol, type: 'register' | 'ping'): fc.Arbitrary<Frame> {
  const sigfoxId = hex(4, 4);
  const custom: fc.Arbitrary<CustomValues> = p === 'UDM22'
    ? fc.record({ version: fc.constant('2.2'), device_class: int(0xffff), sigfox_id: sigfoxId })
    : fc.tuple(
        fc.record({ version: fc.constant('2.3'), software_release: int(0xffff), device_class: int(0xffff), sigfox_id: sigfoxId }),
        maybe('custom_value', byte),
      ).map(([a, b]) => ({ ...a, ...b }));
  return frame(type, fc.constant(type), custom);
}

function services(p: Protocol): fc.Arbitrary<Frame> {
  const text = fc.array(byte, { minLength: p === 'UDM22' ? 1 : 0, maxLength: 9 }).map((cs) => String.fromCharCode(...cs));
  return frame('service', fc.constantFrom('service_sms', 'service_tweet'), fc.record({ text }));
}

/** Every frame type and variant valid under `p` (GPS is generated as bytes, see gpsFrameBytes). */
export function frames(p: Protocol): fc.Arbitrary<Frame> {
  return fc.oneof(
    events(p),
    data(p),
    keepalives(p),
    registrations(p, 'register'),
    ...(p === 'UDM23' ? [registrations(p, 'ping')] : []),
    services(p),
    frame('raw', fc.constant('raw'), maybeData(10)),
    frame('geoloc', fc.constant('geoloc'), maybeData(10)),
  );
}

/** Bit-stream lengths after the 4-bit GPS type (section 4.3), by type 0..4. */
const GPS_BITS = [68, 68, 48, 40, 32];

/**
 * DATA/GPS frames as bytes: a random header, sub-type 1, a GPS type 0..4 and random position bits
 * (any value, including no-fix patterns, garbage minutes ≥ 60 and -0 signs), zero-padded.
 */
export const gpsFrameBytes: fc.Arbitrary<Uint8Array> = fc
  .tuple(int(255), int(15), int(4), fc.array(fc.boolean(), { minLength: 68, maxLength: 68 }), fc.boolean())
  .map(([b0, entry, type, bits, noFix]) => {
    const body = bits.slice(0, GPS_BITS[type]);
    if (noFix) body.fill(true, type === 0 ? 0 : 2, type === 0 ? 63 : GPS_BITS[type] - (type === 1 ? 20 : 0)).fill(false, 0, type === 0 ? 0 : 2);
    const all = [...[8, 4, 2, 1].map((m) => (type & m) !== 0), ...body];
    const out = [b0, (entry << 4) | 1, 1];
    for (let i = 0; i < all.length; i += 8) out.push(all.slice(i, i + 8).reduce((acc, bit, j) => acc | (+bit << (7 - j)), 0));
    return Uint8Array.from(out);
  });
