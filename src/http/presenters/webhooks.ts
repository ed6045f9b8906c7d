import { Type } from 'typebox';
import type { TestCallbackResult, WebhookHealth } from '../../domain/webhooks.js';

const IntegerOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const WebhookHealthSchema = Type.Object({
  app: Type.Integer(),
  since: Type.Integer({ description: 'start of the window, epoch ms (the last day)' }),
  delivered: Type.Integer({ description: 'deliveries delivered in the window' }),
  failed: Type.Integer({ description: 'deliveries that used every attempt in the window' }),
  retrying: Type.Integer({ description: 'pending after a failed attempt' }),
  queued: Type.Integer({ description: 'pending, not tried yet' }),
  failed_total: Type.Integer({ description: 'failed deliveries of the app however old (what all_failed retries)' }),
  success_rate: Type.Union([Type.Number(), Type.Null()], { description: 'delivered ÷ (delivered + failed), 0 to 1; null when none ended' }),
  latency_ms: Type.Object({
    p50: IntegerOrNull('median time of a request, ms'),
    p95: IntegerOrNull('95th percentile, ms'),
    samples: Type.Integer({ description: 'requests measured (the newest, at most 10,000)' }),
  }),
  last_error: Type.Union([
    Type.Object({
      delivery: Type.Integer(),
      at: Type.Integer({ description: 'epoch ms' }),
      status_code: IntegerOrNull('HTTP status, null when there was no answer'),
      error: Type.String(),
    }),
    Type.Null(),
  ]),
});

export function presentWebhookHealth(health: WebhookHealth) {
  const { lastError } = health;
  return {
    app: health.appId,
    since: health.since.getTime(),
    ...health.counts,
    failed_total: health.failedTotal,
    success_rate: health.successRate,
    latency_ms: health.latency,
    last_error: lastError && { delivery: lastError.delivery, at: lastError.at.getTime(), status_code: lastError.statusCode, error: lastError.error },
  };
}

export const TestCallbackSchema = Type.Object({
  ok: Type.Boolean({ description: 'the URL answered 2xx' }),
  status_code: IntegerOrNull('HTTP status, null when there was no answer'),
  latency_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed: "HTTP 500: …", "timeout after 5000 ms", …' }),
});

export const presentTestCallback = (result: TestCallbackResult) => ({
  ok: result.ok,
  status_code: result.statusCode,
  latency_ms: result.latencyMs,
  error: result.error,
});
