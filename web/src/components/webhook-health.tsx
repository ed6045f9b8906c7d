import { api } from '../api/api';
import type { TestCallback, WebhookHealth } from '../api/types';
import { formatTime, plural } from '../format';
import { useAction, useLoad } from '../hooks';
import { useLiveRefresh } from '../live-hooks';
import { Notice } from './notice';
import { Section } from './page';

function rate(health: WebhookHealth): string {
  if (health.success_rate === null) return 'no delivery ended yet';
  const percent = Math.round(health.success_rate * 1000) / 10;
  return `${percent} % (${health.delivered} delivered, ${health.failed} failed)`;
}

function latency({ latency_ms: latency }: WebhookHealth): string {
  if (latency.samples === 0) return 'no request yet';
  return `p50 ${latency.p50} ms · p95 ${latency.p95} ms (${plural(latency.samples, 'request')})`;
}

function testText(result: TestCallback): string {
  const answer = result.status_code === null ? 'no answer' : `HTTP ${result.status_code}`;
  return result.ok ? `Test message delivered: ${answer} in ${result.latency_ms} ms.` : `Test message failed after ${result.latency_ms} ms: ${result.error ?? answer}.`;
}

/**
 * How the app's callbacks went over the last day (read again after delivery outcomes on the live
 * stream, every 10 s while it is offline), a button that sends a signed test message now, and one
 * that queues every failed delivery again.
 */
export function WebhookHealthSection({ appId, hasCallback, revision, onRetried }: { appId: number; hasCallback: boolean; revision: number; onRetried: () => void }) {
  const health = useLoad(() => api.webhookHealth(appId), [appId, revision]);
  useLiveRefresh({ app: appId }, () => void health.reload(), { types: ['delivery'], fallbackMs: 10_000, wait: 1000, maxWait: 5000 });
  const test = useAction(async () => {
    retryAll.clear();
    const result = await api.sendTest(appId);
    if (!result.ok) throw new Error(testText(result));
    return testText(result);
  });
  const retryAll = useAction(async () => {
    test.clear();
    const { requeued } = await api.retryFailed(appId, { all_failed: true });
    onRetried();
    return `${plural(requeued, 'failed delivery', 'failed deliveries')} queued again.`;
  });
  const data = health.data;
  const failed = data?.failed_total ?? 0;

  return (
    <Section
      title="Webhook health"
      id="app-health"
      actions={
        <>
          <button type="button" class="button small" disabled={!hasCallback || test.busy} onClick={() => void test.run()}>
            {test.busy ? 'Sending…' : 'Send test message'}
          </button>
          <button type="button" class="button small" disabled={failed === 0 || retryAll.busy} onClick={() => void retryAll.run()}>
            Retry all failed ({failed})
          </button>
        </>
      }
    >
      <Notice error={health.error ?? test.error ?? retryAll.error} done={test.done ?? retryAll.done} />
      {data && (
        <dl class="details" data-health>
          <dt>Success, last 24 h</dt>
          <dd data-field="success">{rate(data)}</dd>
          <dt>Latency</dt>
          <dd data-field="latency">{latency(data)}</dd>
          <dt>In the queue</dt>
          <dd>
            {data.retrying} retrying, {data.queued} waiting
          </dd>
          <dt>Last error</dt>
          <dd class="break" data-field="last-error">
            {data.last_error ? `${data.last_error.error} — delivery #${data.last_error.delivery}, ${formatTime(data.last_error.at)}` : 'none in the last 24 h'}
          </dd>
        </dl>
      )}
      <p class="hint">
        The test message is signed like every callback and carries <code>"type": "test"</code> and <code>X-Snsr-Test: 1</code>; it is not a message and is not retried.
      </p>
    </Section>
  );
}
