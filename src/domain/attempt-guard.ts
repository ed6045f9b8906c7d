/**
 * Throttles guessing. Whoever checks a secret a stranger could guess (a password, an account token,
 * a module key) asks `allow()` before checking it, so a blocked guesser costs no password hash and
 * learns nothing, and reports every wrong secret with `failed()`. The HTTP layer builds one per
 * request from what the request names (account, module serial) and where it comes from (address).
 */
export interface AttemptGuard {
  /** Resolves when the secret may be checked; rejects with a `too_many_requests` error while blocked. */
  allow(): Promise<void>;
  /** Counts one failed attempt against everything the request names. */
  failed(): Promise<void>;
}

/** For callers with nothing to throttle (the CLI, tests of the domain alone). */
export const UNGUARDED: AttemptGuard = { allow: async () => undefined, failed: async () => undefined };
