import type { LiveStatus } from '../live-stream';

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

function text(status: LiveStatus, fallbackMs: number): string {
  if (status === 'live') return 'Live';
  if (status === 'connecting') return 'Connecting…';
  if (status === 'reconnecting') return 'Reconnecting…';
  return `Offline — refreshing every ${seconds(fallbackMs)}`;
}

/**
 * Whether the views beside it are live: "Live" while the event stream is open, "Reconnecting…"
 * after a drop, "Offline — refreshing every N s" while they poll instead. Said in words (the dot
 * only repeats it), and announced politely when it changes.
 */
export function LiveIndicator({ status, fallbackMs }: { status: LiveStatus | undefined; fallbackMs: number }) {
  if (status === undefined) return null;
  return (
    <span class={`live-indicator live-${status}`} role="status" data-live={status}>
      <span class="live-dot" aria-hidden="true" />
      {text(status, fallbackMs)}
    </span>
  );
}
