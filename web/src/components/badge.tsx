import type { ComponentChildren } from 'preact';
import type { Device, DeliveryStatus } from '../api/types';

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted';

// A symbol beside the words, so the state reads without colour too.
const SYMBOL: Record<Tone, string> = { ok: '✓', warn: '!', bad: '✕', info: '•', muted: '?' };

export function Badge({ tone, children, title }: { tone: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${tone}`} title={title}>
      <span aria-hidden="true" class="badge-symbol">
        {SYMBOL[tone]}
      </span>
      <span>{children}</span>
    </span>
  );
}

type StatusField = 'battery' | 'level' | 'network' | 'tamper' | 'temp';

/**
 * Each device status field as words and a tone. UNKNOWN means no event of that family yet — not that
 * the reading is unknown: a voltage or temperature shown beside the badge comes from keep-alives.
 */
const STATES: Record<StatusField, Record<string, [Tone, string]>> = {
  battery: { ON: ['ok', 'Battery OK'], OFF: ['bad', 'Battery low'], UNKNOWN: ['muted', 'No battery event'] },
  // `level` follows the module's signal events (RSSI low / OK), not the RSSI itself: before the first
  // one there is no alarm to report, which is not the same as an unknown signal.
  level: { ON: ['ok', 'Signal OK'], OFF: ['warn', 'Signal low'], UNKNOWN: ['muted', 'No signal event'] },
  network: { ON: ['ok', 'Network OK'], OFF: ['bad', 'Connection lost'], UNKNOWN: ['muted', 'No network event'] },
  tamper: { OFF: ['ok', 'No tamper'], ON: ['bad', 'Tamper'], UNKNOWN: ['muted', 'No tamper event'] },
  temp: { OK: ['ok', 'Temp OK'], LOW: ['warn', 'Temp low'], HIGH: ['bad', 'Temp high'], UNKNOWN: ['muted', 'No temp event'] },
};

export function StatusBadge({ field, value }: { field: StatusField; value: string }) {
  const [tone, text] = STATES[field][value] ?? ['muted', `${field} ${value}`];
  return (
    <Badge tone={tone} title={`${field}: ${value}`}>
      {text}
    </Badge>
  );
}

export function DeviceBadges({ device }: { device: Device }) {
  return (
    <ul class="badges" aria-label={`Status of ${device.serial}`}>
      {!device.active && (
        <li>
          <Badge tone="muted">Inactive</Badge>
        </li>
      )}
      {(['battery', 'level', 'network', 'tamper', 'temp'] as const).map((field) => (
        <li key={field}>
          <StatusBadge field={field} value={device[field]} />
        </li>
      ))}
      {device.watched && (
        <li>
          <Badge tone="info">Watched</Badge>
        </li>
      )}
    </ul>
  );
}

const DELIVERY: Record<DeliveryStatus, [Tone, string]> = {
  pending: ['info', 'Pending'],
  delivered: ['ok', 'Delivered'],
  failed: ['bad', 'Failed'],
};

export function DeliveryBadge({ status }: { status: DeliveryStatus }) {
  const [tone, text] = DELIVERY[status] ?? ['muted', status];
  return <Badge tone={tone}>{text}</Badge>;
}
