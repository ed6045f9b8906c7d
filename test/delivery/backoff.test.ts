import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKOFF_FACTOR, MAX_RETRY_DELAY_MS, retryDelay } from '../../src/delivery/backoff.js';
import { signatureHeader } from '../../src/delivery/signature.js';

describe('retryDelay', () => {
  it('grows fourfold from the base with equal jitter: between half and all of base × 4^(attempts−1)', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 10_000, () => 0))).toEqual([5_000, 20_000, 80_000, 320_000]);
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 10_000, () => 1))).toEqual([10_000, 40_000, 160_000, 640_000]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 86_400_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempts, base, r) => {
        const full = Math.min(MAX_RETRY_DELAY_MS, base * BACKOFF_FACTOR ** Math.min(attempts - 1, 30));
        const delay = retryDelay(attempts, base, () => r);
        expect(delay).toBeGreaterThanOrEqual(Math.floor(full / 2));
        expect(delay).toBeLessThanOrEqual(Math.ceil(full));
      }),
    );
  });

  it('with the defaults (10 s, 8 attempts) keeps trying for at least an hour and a half', () => {
    const span = (r: number) => [1, 2, 3, 4, 5, 6, 7].reduce((total, n) => total + retryDelay(n, 10_000, () => r), 0);
    expect(span(0)).toBe(5_305_000);
    expect(span(1)).toBe(10_610_000);
  });

  it('never waits more than an hour, however many attempts', () => {
    expect(retryDelay(100, 10_000, () => 1)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelay(30, 86_400_000, () => 0)).toBe(MAX_RETRY_DELAY_MS / 2);
  });
});

describe('signatureHeader', () => {
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> keyed by the secret', () => {
    // Reference value computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
    expect(signatureHeader('secret', '{"a":1}', 1_700_000_000)).toBe('t=1700000000,v1=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686');
  });
});
