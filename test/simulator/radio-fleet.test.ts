import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/domain/catalog.js';
import { catalogCsv, generatedModules, parseModules } from '../../src/simulator/fleet.js';
import { LatencyHistogram } from '../../src/simulator/latency.js';
import { Radio } from '../../src/simulator/radio.js';
import { Random } from '../../src/simulator/random.js';

describe('the simulated radio', () => {
  const radio = new Radio(new Random(3));
  const uplinks = Array.from({ length: 4000 }, () => radio.receive());

  it('has each uplink heard by one to three distinct stations, best SNR first, with plausible levels', () => {
    for (const receptions of uplinks) {
      expect(receptions.length).toBeGreaterThanOrEqual(1);
      expect(receptions.length).toBeLessThanOrEqual(3);
      expect(new Set(receptions.map((r) => r.station)).size).toBe(receptions.length);
      expect(receptions.map((r) => r.snr)).toEqual([...receptions.map((r) => r.snr)].sort((a, b) => b - a));
      for (const r of receptions) {
        expect(r.station).toMatch(/^[0-9A-F]{4}$/);
        expect(r.rssi).toBeGreaterThanOrEqual(-142);
        expect(r.rssi).toBeLessThanOrEqual(-70);
        expect(r.snr).toBeGreaterThanOrEqual(0.5);
        expect(r.snr).toBeLessThanOrEqual(40);
        expect(Math.round(r.rssi * 100) / 100).toBe(r.rssi);
      }
    }
  });

  it('is heard by one station half the time, by three about one time in seven', () => {
    const share = (n: number) => uplinks.filter((r) => r.length === n).length / uplinks.length;
    expect(share(1)).toBeCloseTo(0.5, 1);
    expect(share(2)).toBeCloseTo(0.35, 1);
    expect(share(3)).toBeCloseTo(0.15, 1);
  });

  it('has a single station hear everything when duplicates are off', () => {
    expect(Array.from({ length: 100 }, () => radio.receive(true).length).every((n) => n === 1)).toBe(true);
  });
});

describe('the simulated fleet', () => {
  it('reads --modules with optional protocols, every third module a gateway', () => {
    expect(parseModules('c0fe, BEEF:udm22,0ACE:UDM23,F00D')).toEqual([
      { serial: 'C0FE', protocol: 'UDM23', children: 1 },
      { serial: 'BEEF', protocol: 'UDM22', children: 0 },
      { serial: '0ACE', protocol: 'UDM23', children: 0 },
      { serial: 'F00D', protocol: 'UDM23', children: 2 },
    ]);
  });

  it.each([['XYZ', /XYZ.*hex/], ['C0FE:UDM99', /UDM22 or UDM23/], [' , ', /no module/], ['123456789', /1 to 8 hex/]])('rejects --modules %j', (list, message) => {
    expect(() => parseModules(list)).toThrow(message);
  });

  it('generates modules F0000001… with a catalog the operator can import as is', () => {
    const modules = generatedModules(8);
    expect(modules.map((m) => m.serial)).toEqual(['F0000001', 'F0000002', 'F0000003', 'F0000004', 'F0000005', 'F0000006', 'F0000007', 'F0000008']);
    expect(modules.filter((m) => m.protocol === 'UDM22').map((m) => m.serial)).toEqual(['F0000004', 'F0000008']);
    const entries = parseCatalog(catalogCsv(modules));
    expect(entries.map((e) => [e.serial, e.protocol])).toEqual(modules.map((m) => [m.serial, m.protocol]));
    expect(new Set(entries.map((e) => e.key)).size).toBe(8);
    expect(catalogCsv(modules)).toBe(catalogCsv(generatedModules(8)));
  });
});

describe('the latency histogram', () => {
  it('gives percentiles within 1 % and the exact maximum', () => {
    const histogram = new LatencyHistogram();
    for (let i = 1; i <= 10_000; i++) histogram.record(i / 100);
    expect(histogram.count).toBe(10_000);
    expect(histogram.percentile(50)).toBeGreaterThan(50 * 0.99);
    expect(histogram.percentile(50)).toBeLessThan(50 * 1.01);
    expect(histogram.percentile(99)).toBeGreaterThan(99 * 0.99);
    expect(histogram.percentile(99)).toBeLessThan(99 * 1.01);
    expect(histogram.max).toBe(100);
    expect(new LatencyHistogram().percentile(99)).toBe(0);
  });
});
