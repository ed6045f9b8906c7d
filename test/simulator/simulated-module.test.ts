import { describe, expect, it } from 'vitest';
import { decode } from '../../src/protocol/udm/index.js';
import type { Frame, Protocol } from '../../src/protocol/udm/index.js';
import { Random } from '../../src/simulator/random.js';
import { SimulatedModule } from '../../src/simulator/simulated-module.js';
import type { Emission } from '../../src/simulator/simulated-module.js';

function run(protocol: Protocol, children: number, count: number, behaviour = { lost: 0.01, repeated: 0.03, ack: 0.02 }) {
  const module = new SimulatedModule({ serial: 'C0FE', protocol, children }, new Random(7), behaviour);
  const emissions: (Emission & { frame: Frame })[] = [];
  for (let i = 0; i < count; i++) {
    const emission = module.next();
    const result = decode(emission.data, protocol);
    if (!result.ok) throw new Error(`${emission.data} does not decode under ${protocol}: ${result.reason}`);
    emissions.push({ ...emission, frame: result.frame });
  }
  return emissions;
}

describe.each(['UDM23', 'UDM22'] as const)('a simulated %s module', (protocol) => {
  const emissions = run(protocol, 3, 3000);
  const codes = new Set(emissions.map((e) => e.frame.code));

  it('sends only frames that decode under its protocol, upper-case hex', () => {
    expect(emissions.every((e) => /^[0-9A-F]+$/.test(e.data))).toBe(true);
  });

  it('registers first, then registers its children through entries 1..3 with their own Sigfox ids', () => {
    expect(emissions[0].frame).toMatchObject({ code: 'register', header: { entryId: 0 }, custom: { version: protocol === 'UDM23' ? '2.3' : '2.2', sigfox_id: '0000C0FE' } });
    const children = emissions.slice(1, 4).map((e) => e.frame);
    expect(children.map((f) => [f.code, f.header.entryId])).toEqual([['register', 1], ['register', 2], ['register', 3]]);
    expect(new Set(children.map((f) => f.custom.sigfox_id)).size).toBe(3);
  });

  it('sends keep-alives, battery, temperature and child events over time', () => {
    for (const code of ['event_battery_low', 'event_battery_ok', 'event_temp_low', 'event_temp_ok', 'event_connection_lost', 'event_rssi_low']) {
      expect(codes, code).toContain(code);
    }
    const keepalives = emissions.filter((e) => e.frame.header.type === 'keepalive');
    expect(keepalives.length).toBeGreaterThan(emissions.length / 2);
    expect(keepalives.some((e) => e.frame.header.entryId > 0)).toBe(true);
  });

  it('advances the 4-bit counter and the sequence number on every emission, lost or not', () => {
    emissions.slice(1).forEach((e, i) => {
      expect(e.frame.header.cpt).toBe((emissions[i].frame.header.cpt + 1) % 16);
      expect(e.seqNumber).toBe((emissions[i].seqNumber + 1) % 4096);
    });
  });

  it('repeats a frame on the next emission with the retry bit, the same stamp and payload', () => {
    const repetitions = emissions.map((e, i) => [emissions[i - 1], e] as const).filter(([, e]) => e.repetition);
    expect(repetitions.length).toBeGreaterThan(30);
    for (const [original, repetition] of repetitions) {
      expect(repetition.frame.header).toMatchObject({ retry: true, stamp: original.frame.header.stamp, entryId: original.frame.header.entryId });
      expect(original.frame.header.retry).toBe(false);
      expect(repetition.data.slice(2)).toBe(original.data.slice(2));
    }
  });

  it('loses about 1 % of emissions and asks for a downlink about 2 % of the time', () => {
    const lost = emissions.filter((e) => e.lost).length;
    const acks = emissions.filter((e) => e.ack).length;
    expect(lost).toBeGreaterThan(10);
    expect(lost).toBeLessThan(70);
    expect(acks).toBeGreaterThan(25);
    expect(acks).toBeLessThan(110);
  });
});

describe('a plain simulated module', () => {
  it('has no children and only entry-0 frames', () => {
    const emissions = run('UDM23', 0, 500, { lost: 0, repeated: 0, ack: 0 });
    expect(emissions.every((e) => e.frame.header.entryId === 0 && !e.lost && !e.repetition && !e.ack)).toBe(true);
    expect(emissions.filter((e) => e.frame.code === 'register')).toHaveLength(1);
  });

  it('replays the same traffic from the same seed', () => {
    expect(run('UDM23', 2, 200).map((e) => e.data)).toEqual(run('UDM23', 2, 200).map((e) => e.data));
  });
});
