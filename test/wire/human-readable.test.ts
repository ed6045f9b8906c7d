import { describe, expect, it } from 'vitest';
import { humanReadable } from '../../src/wire/human-readable.js';

describe('humanReadable', () => {
  it('writes the code in words and the decoded values with their units', () => {
    expect(humanReadable('event_battery_low', { voltage_mv: 2850 })).toBe('event battery low: voltage 2.85 V');
    expect(humanReadable('keepalive_voltage_temp', { interval_h: 24, voltage_mv: 3300, temperature_c: 21.5 })).toBe(
      'keepalive voltage temp: interval 24 h, voltage 3.3 V, temperature 21.5 °C',
    );
    expect(humanReadable('data_gps', { altitude_m: 120, fix: true, text: 'ok' })).toBe('data gps: altitude 120 m, fix true, text ok');
  });

  it('writes the code alone when the frame carries no value', () => {
    expect(humanReadable('event_connection_ok', {})).toBe('event connection ok');
  });
});
