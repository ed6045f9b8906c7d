import { randomUUID } from 'node:crypto';
import type { App } from '../domain/types.js';
import type { TestCallbackResult, TestCallbacks } from '../domain/webhooks.js';
import { CallbackSender } from './callback-sender.js';
import type { SenderOptions } from './callback-sender.js';
import { signatureHeader } from './signature.js';

/**
 * The body of a test callback: `"type": "test"` at the top (a message callback has no `type` there)
 * and no message, so a receiver can tell it apart and must not store it as data.
 */
export function testCallbackBody(appId: number, sentMs: number): string {
  return JSON.stringify({ type: 'test', app: appId, sent: sentMs, text: 'a test callback from snsr; it carries no message' });
}

/**
 * Sends one test callback now, signed like every callback (X-Snsr-Signature with the app secret),
 * with `X-Snsr-Delivery: test-<uuid>` and `X-Snsr-Test: 1`; under the same limits as the worker's
 * sends (timeout, private targets). Nothing is queued or recorded.
 */
export class TestCallbackSender implements TestCallbacks {
  constructor(private readonly options: SenderOptions) {}

  async send(app: App & { callbackUrl: string }): Promise<TestCallbackResult> {
    const now = Date.now();
    const body = testCallbackBody(app.id, now);
    const headers = {
      'x-snsr-delivery': `test-${randomUUID()}`,
      'x-snsr-signature': signatureHeader(app.secret, body, Math.floor(now / 1000)),
      'x-snsr-test': '1',
    };
    // A sender of its own: its keep-alive connection is closed as soon as the answer is in.
    const sender = new CallbackSender(this.options);
    const started = performance.now();
    try {
      const outcome = await sender.send(app.callbackUrl, body, headers);
      const latencyMs = Math.round(performance.now() - started);
      if (outcome.kind === 'delivered') return { ok: true, statusCode: outcome.statusCode, latencyMs, error: null };
      if (outcome.kind === 'failed') return { ok: false, statusCode: outcome.statusCode, latencyMs, error: outcome.error };
      return { ok: false, statusCode: null, latencyMs, error: 'cut off' };
    } finally {
      sender.close();
    }
  }
}
