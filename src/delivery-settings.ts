import { ConfigError, boolean, integer } from './env-values.js';
import type { Env } from './env-values.js';

/** How callbacks are sent and retried (SNSR_DELIVERY_*, SNSR_CALLBACK_ALLOW_PRIVATE). */
export interface DeliverySettings {
  backoffMs: number;
  maxAttempts: number;
  allowPrivateTargets: boolean;
  retentionDays: number;
  concurrency: number;
  perAppConcurrency: number;
  /** How long a claim is reserved for its worker, on the database's clock. */
  leaseMs: number;
  /** Total time one callback request may take. */
  timeoutMs: number;
}

/**
 * A worker starts a send only while its lease will outlast it (the fencing that keeps a stalled
 * worker from sending what another took over), so the lease must leave room for claims waiting
 * their turn: at least three request timeouts.
 */
export function deliverySettings(env: Env): DeliverySettings {
  const timeoutMs = integer(env, 'SNSR_DELIVERY_TIMEOUT_MS', 5000, 100, 600_000);
  const leaseMs = integer(env, 'SNSR_DELIVERY_LEASE_MS', 30_000, 300, 3_600_000);
  if (leaseMs < 3 * timeoutMs) {
    throw new ConfigError(`SNSR_DELIVERY_LEASE_MS (${leaseMs}) must be at least 3 × SNSR_DELIVERY_TIMEOUT_MS (${timeoutMs})`);
  }
  return {
    backoffMs: integer(env, 'SNSR_DELIVERY_BACKOFF_MS', 10_000, 1, 86_400_000),
    maxAttempts: integer(env, 'SNSR_DELIVERY_MAX_ATTEMPTS', 8, 1, 100),
    allowPrivateTargets: boolean(env, 'SNSR_CALLBACK_ALLOW_PRIVATE', false),
    retentionDays: integer(env, 'SNSR_DELIVERY_RETENTION_DAYS', 7, 1, 3650),
    concurrency: integer(env, 'SNSR_DELIVERY_CONCURRENCY', 32, 1, 1024),
    perAppConcurrency: integer(env, 'SNSR_DELIVERY_PER_APP_CONCURRENCY', 4, 1, 256),
    leaseMs,
    timeoutMs,
  };
}
