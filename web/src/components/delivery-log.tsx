import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Delivery, DeliveryStatus } from '../api/types';
import { formatRelative, formatTime, plural } from '../format';
import { errorText, useAction, useLoad } from '../hooks';
import { useLiveRefresh } from '../live-hooks';
import { DeliveryBadge } from './badge';
import { Labelled } from './field';
import { LiveIndicator } from './live-indicator';
import { Notice } from './notice';
import { Section } from './page';

const PAGE = 20;
/** The polling period while the live stream is offline. */
export const DELIVERIES_MS = 5000;

function lastResult(delivery: Delivery): string {
  // last_error already names the status ("HTTP 500") when the target answered.
  if (delivery.last_error) return delivery.last_error;
  return delivery.last_status_code !== null ? `HTTP ${delivery.last_status_code}` : '—';
}

function timing(delivery: Delivery): string {
  if (delivery.status === 'delivered') return `delivered ${formatTime(delivery.delivered)}`;
  if (delivery.status === 'pending' && delivery.next_attempt !== null) return `next attempt ${formatRelative(delivery.next_attempt)}`;
  return delivery.status === 'failed' ? 'gave up' : '—';
}

/**
 * The callback deliveries of an app, newest first, refreshed as outcomes arrive on the live stream
 * (every 5 s while it is offline). A failed delivery (every attempt used) can be sent again with Retry.
 */
export function DeliveryLog({ appId, hasCallback, revision, onRetried }: { appId: number; hasCallback: boolean; revision: number; onRetried: () => void }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [more, setMore] = useState(false);
  const log = useLoad(async () => {
    const page = await api.deliveries(appId, { limit: PAGE, ...(status && { status }) });
    setMore(page.length === PAGE);
    return page;
  }, [appId, status, revision]);
  const items = log.data ?? [];

  // Refresh what is shown (all loaded pages at once) without resetting the reader's paging: after
  // delivery outcomes on the app's live stream, or every 5 s while the stream is offline.
  const refresh = async () => {
    try {
      const fresh = await api.deliveries(appId, { limit: Math.min(200, Math.max(PAGE, items.length)), ...(status && { status }) });
      log.set(fresh);
    } catch {
      // the next event or tick tries again; errors of explicit actions are shown
    }
  };
  const live = useLiveRefresh({ app: appId }, () => void refresh(), { types: ['delivery'], fallbackMs: DELIVERIES_MS, wait: 300, maxWait: 2000 });

  const older = useAction(async () => {
    const last = items.at(-1);
    if (!last) return;
    const page = await api.deliveries(appId, { limit: PAGE, before: last.id, ...(status && { status }) });
    setMore(page.length === PAGE);
    log.set([...items, ...page]);
  });
  const toggle = (id: number, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const retrySelected = useAction(async () => {
    const { requeued } = await api.retryFailed(appId, { ids: [...selected] });
    setSelected(new Set());
    onRetried();
    return `${plural(requeued, 'failed delivery', 'failed deliveries')} queued again.`;
  });
  const [retryError, setRetryError] = useState<string>();
  const [retrying, setRetrying] = useState<number>();
  const retry = async (delivery: Delivery) => {
    setRetrying(delivery.id);
    setRetryError(undefined);
    try {
      const updated = await api.retryDelivery(appId, delivery.id);
      log.set(items.map((item) => (item.id === updated.id ? updated : item)));
    } catch (error) {
      setRetryError(`Delivery ${delivery.id} was not retried: ${errorText(error)}`);
    } finally {
      setRetrying(undefined);
    }
  };

  return (
    <Section
      title="Deliveries"
      id="app-deliveries"
      actions={
        <>
          <LiveIndicator status={live} fallbackMs={DELIVERIES_MS} />
          <Labelled label="Show">
            {(id) => (
              <select id={id} value={status} onChange={(event) => setStatus(event.currentTarget.value as DeliveryStatus | '')}>
                <option value="">All deliveries</option>
                <option value="pending">Pending</option>
                <option value="delivered">Delivered</option>
                <option value="failed">Failed</option>
              </select>
            )}
          </Labelled>
          {selected.size > 0 && (
            <button type="button" class="button small primary" disabled={retrySelected.busy} onClick={() => void retrySelected.run()}>
              Retry selected ({selected.size})
            </button>
          )}
          <button type="button" class="button small" onClick={() => void log.reload()} disabled={log.loading}>
            Refresh
          </button>
        </>
      }
    >
      {!hasCallback && <p class="hint">This app has no callback URL: set one in Settings to receive messages.</p>}
      <Notice error={log.error ?? older.error ?? retryError ?? retrySelected.error} done={retrySelected.done} />
      {log.data && items.length === 0 && <p class="empty">No delivery {status ? `with status ${status}` : 'yet'}.</p>}
      {items.length > 0 && (
        <div class="table-scroll">
          <table class="deliveries stackable">
            <caption class="visually-hidden">Callback deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last result</th>
                <th scope="col">When</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((delivery) => (
                <tr key={delivery.id} data-delivery={delivery.id} data-status={delivery.status}>
                  <td data-label="Delivery">
                    {/* One child: on a phone the cell is a grid of its label and this. */}
                    <div>
                      {delivery.status === 'failed' ? (
                        <label class="check">
                          <input type="checkbox" checked={selected.has(delivery.id)} onChange={(event) => toggle(delivery.id, event.currentTarget.checked)} />#{delivery.id}
                          <span class="visually-hidden"> selected for retry</span>
                        </label>
                      ) : (
                        <div>#{delivery.id}</div>
                      )}
                      <div class="hint">
                        {delivery.kind === 'alert' ? `alert #${delivery.alert_id} of` : 'message of'} {formatTime(delivery.when ?? delivery.created)}
                      </div>
                    </div>
                  </td>
                  <td data-label="Status">
                    <DeliveryBadge status={delivery.status} />
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td class="break" data-label="Last result">
                    {lastResult(delivery)}
                  </td>
                  <td data-label="When">{timing(delivery)}</td>
                  <td>
                    {delivery.status === 'failed' && (
                      <button
                        type="button"
                        class="button small"
                        aria-label={`Retry delivery ${delivery.id}`}
                        disabled={retrying === delivery.id}
                        onClick={() => void retry(delivery)}
                      >
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && (
        <button type="button" class="button" disabled={older.busy} onClick={() => void older.run()}>
          Older deliveries
        </button>
      )}
    </Section>
  );
}
