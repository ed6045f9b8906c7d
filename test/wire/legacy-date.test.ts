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
});
