import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DomainError } from '../../src/domain/errors.js';
import { afterMs, beforeMs, beforeSeconds, parseAmount, parseInstant } from '../../src/domain/time-range.js';

const rejects = (fn: () => unknown, message: RegExp) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('bad_request');
    expect((error as DomainError).message).toMatch(message);
    return;
  }
  throw new Error('expected a bad_request');
};

describe('parseAmount', () => {
  it('defaults to 20 when absent or empty', () => {
    for (const raw of [undefined, null, '']) expect(parseAmount('amount', raw)).toBe(20);
  });

  it('takes whole numbers from 1 to 1000, as text or number', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1000 }), (n) => parseAmount('amount', String(n)) === n && parseAmount('amount', n) === n));
    expect(parseAmount('limit', ' 7 ')).toBe(7);
  });

  it('refuses anything else, naming the parameter and the value', () => {
    for (const raw of ['0', '1001', '-3', '2.5', 'ten', '1e2', ['1', '2'], 0, 1001, 2.5, true]) {
      rejects(() => parseAmount('limit', raw), /^limit must be a whole number from 1 to 1000, got /);
    }
    rejects(() => parseAmount('amount', 'x'), /got "x"$/);
  });
});

describe('parseInstant', () => {
  it('is undefined when absent or empty', () => {
    for (const raw of [undefined, null, '']) expect(parseInstant('until', raw)).toBeUndefined();
  });

  it('reads values below 10^11 as seconds and the rest as milliseconds', () => {
    expect(parseInstant('until', '1491750245')).toBe(1491750245000);
    expect(parseInstant('until', '1491750245123')).toBe(1491750245123);
    expect(parseInstant('until', '1491750245.5')).toBe(1491750245500);
    expect(parseInstant('until', 99_999_999_999)).toBe(99_999_999_999_000);
    expect(parseInstant('until', 100_000_000_000)).toBe(100_000_000_000);
    expect(parseInstant('after', '0')).toBe(0);
  });

  it('gives the same instant for a time sent in seconds and in milliseconds', () => {
    // Every second from 1973 (where milliseconds start) to 2100.
    fc.assert(fc.property(fc.integer({ min: 100_000_000, max: 4_102_444_800 }), (s) => parseInstant('until', String(s)) === parseInstant('until', String(s * 1000))));
  });

  it('refuses non-numbers, negatives and times beyond what a Date holds, naming the parameter', () => {
    for (const raw of ['now', '-1', '1e12', '12abc', ' ', '99999999999999999', ['1', '2'], -5, Infinity, NaN]) {
      rejects(() => parseInstant('before', raw), /^before must be an epoch time in milliseconds or seconds, got /);
    }
  });
});

describe('exclusive bounds on whole units', () => {
  it('keep exactly the integer times strictly on the right side of a fractional bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.double({ min: 0, max: 2 ** 45, noNaN: true }), (when, bound) => {
        expect(when < beforeMs(bound)!).toBe(when < bound);
        expect(when > afterMs(bound)!).toBe(when > bound);
        const seconds = Math.floor(when / 1000);
        expect(seconds < beforeSeconds(bound)!).toBe(seconds < bound / 1000);
      }),
    );
    expect(beforeMs(undefined)).toBeUndefined();
    expect(afterMs(undefined)).toBeUndefined();
    expect(beforeSeconds(undefined)).toBeUndefined();
  });
});
