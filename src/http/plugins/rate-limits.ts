import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Context } from '../../context.js';
import type { AttemptGuard } from '../../domain/attempt-guard.js';
import { tooManyRequests } from '../../domain/errors.js';
import { BATCHED, databaseRateLimitStore } from './rate-limit-store.js';
import { QuotaCounts } from './quota-counts.js';

/** What a password or key check names: the account (email) or the module serial; the address is the request's. */
export interface AttemptSubject {
  account?: string | undefined;
  serial?: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The failed-authentication guard for a secret this request presents for `subject`. */
    attemptGuard(subject: AttemptSubject): AttemptGuard;
  }
}

type Limiter = (request: FastifyRequest, options?: { increment: boolean }) => Promise<{ isAllowed: boolean; remaining?: number; ttlInSeconds?: number }>;
/** The key the next limiter call counts under; limiters read it from the request. */
const ATTEMPT_KEY = Symbol('attempt key');
type Keyed = FastifyRequest & { [ATTEMPT_KEY]?: string };

/**
 * Rate limits with @fastify/rate-limit, counted where every process sees them: Redis when
 * `SNSR_REDIS_URL` is set, else the database on PostgreSQL (several processes), else this process
 * (SQLite has one). Two kinds:
 * - failed authentications per account, per module serial and per client address, in a fixed
 *   window (so a blocked client waits at most the window, and a stranger's guesses cannot block an
 *   account forever): `request.attemptGuard(...)`, asked before any password is hashed;
 * - request quotas per credential on developer and device routes: `requestQuota(...)` hooks; in
 *   the database they are added up a few times a second instead of written per request (`QuotaCounts`).
 */
export async function rateLimits(app: FastifyInstance, context: Context): Promise<void> {
  const { limits } = context.config;
  let shared: { redis: NonNullable<Context['redis']>; nameSpace: string } | { store: ReturnType<typeof databaseRateLimitStore> } | { cache: number } = { cache: 100_000 };
  if (context.redis) shared = { redis: context.redis, nameSpace: 'snsr:rate:' };
  else if (context.storage.capabilities.dialect === 'postgres') {
    const quotas = new QuotaCounts(context.rateLimits, (error) => context.log.warn({ err: error }, 'adding up request quotas in the database failed'));
    app.addHook('onClose', () => quotas.close());
    shared = { store: databaseRateLimitStore(context.rateLimits, quotas) };
  }
  await app.register(rateLimit, {
    global: false,
    ...shared,
    // A counter store that is down must not take the API down with it.
    skipOnError: true,
    errorResponseBuilder: (_request, { max, ttl }) =>
      Object.assign(new Error(`too many requests: this credential may make ${max} a minute; retry after ${Math.max(1, Math.ceil(ttl / 1000))} s`), { statusCode: 429 }),
  });

  const window = limits.failureWindowMinutes * 60_000;
  const limiter = (max: number): Limiter =>
    app.createRateLimit({ max, timeWindow: window, keyGenerator: (request) => (request as Keyed)[ATTEMPT_KEY]! }) as unknown as Limiter;
  const perAccount = limiter(limits.failuresPerAccount);
  const perSerial = limiter(limits.failuresPerSerial);
  const perAddress = limiter(limits.failuresPerAddress);

  app.decorateRequest('attemptGuard', function attemptGuard(this: FastifyRequest, subject: AttemptSubject): AttemptGuard {
    const request = this as Keyed;
    const checks: [Limiter, string, string][] = [[perAddress, `auth:address:${request.ip}`, `from ${request.ip}`]];
    if (subject.account) checks.push([perAccount, `auth:account:${subject.account.trim().toLowerCase()}`, `for ${subject.account.trim().toLowerCase()}`]);
    if (subject.serial) checks.push([perSerial, `auth:serial:${subject.serial.trim().toUpperCase()}`, `for module ${subject.serial.trim().toUpperCase()}`]);
    // Calls are sequential within one request, so the key set just before each call is the one it reads.
    const run = async (check: (typeof checks)[number], increment: boolean) => {
      request[ATTEMPT_KEY] = check[1];
      return check[0](request, { increment });
    };
    return {
      allow: async () => {
        for (const check of checks) {
          const state = await run(check, false);
          if (!state.isAllowed && state.remaining === 0) {
            const retryAfter = Math.max(1, state.ttlInSeconds ?? 1);
            throw tooManyRequests(`too many failed attempts ${check[2]}: retry after ${retryAfter} s`, retryAfter);
          }
        }
      },
      failed: async () => {
        for (const check of checks) await run(check, true);
      },
    };
  });
}

/** Per-minute request quota of a credential on the routes of a scope; runs after their authentication. */
export function requestQuota(app: FastifyInstance, perMinute: number, key: (request: FastifyRequest) => string): preHandlerAsyncHookHandler | undefined {
  if (perMinute === 0) return undefined;
  // Counted in batches where the database keeps the counts (BATCHED): a quota is checked on every request.
  return app.rateLimit({ max: perMinute, timeWindow: 60_000, keyGenerator: (request) => `quota:${key(request)}`, ...BATCHED }) as preHandlerAsyncHookHandler;
}
