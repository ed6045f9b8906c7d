import { api } from '../api/api';
import type { Alert } from '../api/types';
import { formatRelative, formatTime, isoTime } from '../format';
import { useAction } from '../hooks';
import { Badge } from './badge';
import type { Tone } from './badge';
import { Notice } from './notice';

const KINDS: Record<string, [Tone, string]> = {
  battery_low: ['bad', 'Battery low'],
  temperature_low: ['warn', 'Temperature low'],
  temperature_high: ['bad', 'Temperature high'],
  connection_lost: ['bad', 'Connection lost'],
  signal_low: ['warn', 'Signal low'],
  tamper: ['bad', 'Tamper'],
  lost_contact: ['bad', 'Lost contact'],
};

/** An alert's kind in words with a tone; an ended one reads "ended". */
export function AlertKind({ alert }: { alert: Alert }) {
  const [tone, text] = KINDS[alert.kind] ?? ['warn', alert.kind.replace(/_/g, ' ')];
  return (
    <Badge tone={alert.ended === null ? tone : 'muted'} title={alert.ended === null ? 'open' : `ended ${formatTime(alert.ended)}`}>
      {text}
      {alert.ended !== null && ' (ended)'}
    </Badge>
  );
}

/** A module's open alerts, each with Acknowledge until acknowledged. */
export function OpenAlerts({ alerts, onChanged }: { alerts: Alert[]; onChanged: () => Promise<void> }) {
  const ack = useAction(async (alert: Alert) => {
    await api.ackAlert(alert.id);
    await onChanged();
    return `Alert on ${alert.name ?? alert.device} acknowledged.`;
  });
  if (alerts.length === 0) return <p class="quiet">No open alert.</p>;
  return (
    <>
      <ul class="plain-list alert-list" aria-label="Open alerts">
        {alerts.map((alert) => (
          <li key={alert.id} data-alert={alert.id}>
            <AlertKind alert={alert} /> <span class="mono">{alert.device}</span> {alert.name && <span class="device-name">{alert.name}</span>}{' '}
            <time class="muted" dateTime={isoTime(alert.when)} title={formatTime(alert.when)}>
              {formatRelative(alert.when)}
            </time>
            {alert.acked === null ? (
              <button type="button" class="button small" onClick={() => void ack.run(alert)} aria-label={`Acknowledge alert ${alert.id}: ${alert.message}`}>
                Acknowledge
              </button>
            ) : (
              <span class="muted"> · acknowledged</span>
            )}
          </li>
        ))}
      </ul>
      <Notice error={ack.error} done={ack.done} />
    </>
  );
}
