import { describe, expect, it } from 'vitest';
import { legacyDate } from '../../src/wire/legacy-date.js';

describe('legacyDate', () => {
  it('formats like the original service: no comma after the year, 12-hour clock', () => {
    expect(legacyDate(new Date(Date.UTC(2017, 3, 9, 15, 4, 5)), 'UTC')).toBe('Apr 9, 2017 3:04:05 PM');
    expect(legacyDate(new Date(Date.UTC(2017, 11, 31, 0, 0, 0)), 'UTC')).toBe('Dec 31, 2017 12:00:00 AM');
  });

  it('uses the configured time zone', () => {
    expect(legacyDate(new Date(Date.UTC(2017, 3, 9, 15, 4, 5)), 'Europe/Paris')).toBe('Apr 9, 2017 5:04:05 PM');
  });

  it('answers each second in each zone with its own text, however many seconds were formatted before', () => {
    const at = Date.UTC(2017, 3, 9, 15, 4, 5);
    for (let i = 0; i < 10_000; i++) legacyDate(new Date(at + i * 1000), 'UTC');
    expect(legacyDate(new Date(at + 999), 'UTC')).toBe('Apr 9, 2017 3:04:05 PM');
    expect(legacyDate(new Date(at + 999), 'Europe/Paris')).toBe('Apr 9, 2017 5:04:05 PM');
    expect(legacyDate(new Date(at + 1000), 'UTC')).toBe('Apr 9, 2017 3:04:06 PM');
    expect(legacyDate(new Date(Date.UTC(1969, 11, 31, 23, 59, 59, 500)), 'UTC')).toBe('Dec 31, 1969 11:59:59 PM');
    expect(legacyDate(new Date(at + 10_001 * 1000), 'UTC')).toBe('Apr 9, 2017 5:50:46 PM');
  });
});

