/** No retry waits longer than this, however many attempts came before. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/** Each wait is this many times the previous one, until the cap. */
export const BACKOFF_FACTOR = 4;

/**
 * How long to wait after the `attempts`-th failed send: `baseMs × 4^(attempts−1)`, capped, with
 * "equal jitter" — half of it fixed, half random — so the delay keeps growing yet receivers that
 * failed together (an outage, a restart) are not hit again by every queued delivery at the same
 * instant. A factor of 4 makes the defaults (10 s, 8 attempts) span 1.5 to 3 hours, so a receiver
 * that is down for an hour still gets every message; doubling would give up after 10 to 21 minutes.
 */
export function retryDelay(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempts - 1);
  // The power overflows nothing for the attempts config allows (≤ 100), but the cap must win early.
  const delay = Math.min(MAX_RETRY_DELAY_MS, baseMs * BACKOFF_FACTOR ** Math.min(exponent, 30));
  return Math.round(delay / 2 + random() * (delay / 2));
}
