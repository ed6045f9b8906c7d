import { describe, expect, it } from 'vitest';
import { atLeast, atMost, checked } from '../../bench/lib/target-figures.js';

describe('bench target lines', () => {
  it('rounds a figure that must reach its target down, so a near miss never shows the target', () => {
    expect(atLeast(0.2499, 0.25, 3)).toEqual({ shown: '0.249', verdict: 'target ≥ 0.25: MISSED' });
    expect(atLeast(0.25, 0.25, 3)).toEqual({ shown: '0.250', verdict: 'target ≥ 0.25: met' });
    expect(atLeast(0.4187, 0.4, 3)).toEqual({ shown: '0.418', verdict: 'target ≥ 0.4: met' });
    // 0.29 * 100 is 28.999999999999996 in floating point: still shown as 0.29.
    expect(atLeast(0.29, 0.29, 2)).toEqual({ shown: '0.29', verdict: 'target ≥ 0.29: met' });
    expect(atMost(0.07, 0.07, 2).shown).toBe('0.07'); // 0.07 * 100 is 7.000000000000001
  });

  it('rounds a figure that must not pass its target up, with its unit on both sides', () => {
    expect(checked(atMost(1.5004, 1.5, 2, '×'))).toBe('1.51× (target ≤ 1.5×: MISSED)');
    expect(checked(atMost(1.5, 1.5, 2, '×'))).toBe('1.50× (target ≤ 1.5×: met)');
  });

  it('rounds a figure that must stay under its target down, so a near pass never shows the target', () => {
    expect(checked(atMost(24.999, 25, 2, ' ms', true))).toBe('24.99 ms (target < 25 ms: met)');
    expect(checked(atMost(25, 25, 2, ' ms', true))).toBe('25.00 ms (target < 25 ms: MISSED)');
    expect(checked(atMost(25.004, 25, 2, ' ms', true))).toBe('25.00 ms (target < 25 ms: MISSED)');
  });
});
