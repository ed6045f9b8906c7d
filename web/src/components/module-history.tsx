import type { Device, Message, Protocol } from '../api/types';
import { plural } from '../format';
import { Labelled } from './field';
import { LiveIndicator } from './live-indicator';
import { LIVE_MS, useMessageFeed } from './message-feed';
import { MessageTable } from './message-table';
import { Notice } from './notice';
import { Section } from './page';

interface Props {
  serial: string;
  devices: Device[];
  protocol: Protocol;
  /** '' for every device of the module */
  deviceId: string;
  onDevice: (id: string) => void;
  live: boolean;
  onLive: (live: boolean) => void;
  onNew: (messages: Message[]) => void;
}

/** The module's messages, a page at a time (Previous / Next), new ones arriving live on the first page. */
export function ModuleHistory({ serial, devices, protocol, deviceId, onDevice, live, onLive, onNew }: Props) {
  const device = deviceId ? devices.find((d) => d.id === deviceId) : undefined;
  const feed = useMessageFeed(serial, device, live, onNew);
  const pager = (
    <nav class="pager" aria-label="Pages of messages">
      <span aria-live="polite">Page {feed.page}</span>
      <button type="button" class="button small" disabled={feed.page === 1} onClick={feed.previous}>
        ← Newer messages
      </button>
      <button type="button" class="button small" disabled={!feed.more || feed.loading} onClick={feed.next}>
        Older messages →
      </button>
    </nav>
  );
  return (
    <Section
      title="Messages"
      id="module-messages"
      actions={
        <>
          {devices.length > 1 && (
            <Labelled label="Device">
              {(id) => (
                <select id={id} value={deviceId} onChange={(event) => onDevice(event.currentTarget.value)}>
                  <option value="">All devices</option>
                  {devices.map((device) => (
                    <option key={device.id} value={device.id}>
                      {device.serial}
                    </option>
                  ))}
                </select>
              )}
            </Labelled>
          )}
          <label class="check">
            <input type="checkbox" role="switch" checked={live} onChange={(event) => onLive(event.currentTarget.checked)} />
            Live updates
          </label>
          <LiveIndicator status={feed.status} fallbackMs={LIVE_MS} />
        </>
      }
    >
      <p class="visually-hidden" aria-live="polite">
        {feed.arrived > 0 ? `${plural(feed.arrived, 'new message')} received.` : ''}
      </p>
      <Notice error={feed.error} />
      {live && feed.page === 1 && <p class="hint live-hint">New messages appear at the top as they arrive.</p>}
      {!feed.loading && feed.messages.length === 0 && <p class="empty">{feed.page === 1 ? 'No message yet. They appear here as soon as the module transmits.' : 'No older message.'}</p>}
      {feed.messages.length > 0 && <MessageTable messages={feed.messages} fresh={feed.fresh} protocol={protocol} showDevice={devices.length > 1 && !deviceId} />}
      {(feed.page > 1 || feed.more) && pager}
    </Section>
  );
}
