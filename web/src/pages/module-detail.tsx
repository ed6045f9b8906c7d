import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Device, Message } from '../api/types';
import { DeviceCard } from '../components/device-card';
import { DeviceKey } from '../components/device-key';
import { DeviceLabelsSection } from '../components/device-labels';
import { ExportLinks } from '../components/export-links';
import { Labelled } from '../components/field';
import { KeepAliveChart, keepAlivePoints } from '../components/keepalive-chart';
import { useMessageFeed } from '../components/message-feed';
import { MessageTable } from '../components/message-table';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { plural } from '../format';
import { errorText, useLoad } from '../hooks';
import { Link } from '../router';

/** A module: its device and children, its messages (live), and its keep-alive chart. */
export function ModuleDetailPage({ serial }: { serial: string }) {
  const devices = useLoad(async () => {
    const module = await api.device(serial);
    let children: Device[] = [];
    let childrenError: string | undefined;
    try {
      children = await api.children(module.serial);
    } catch (error) {
      childrenError = errorText(error);
    }
    return { module, children, childrenError };
  }, [serial]);
  const module = devices.data?.module;
  const all = module ? [module, ...devices.data!.children] : [];

  return (
    <Page title={`Module ${module?.serial ?? serial.toUpperCase()}`} lead={<Link href="/modules">← All modules</Link>}>
      <Notice error={devices.error} />
      {module && (
        <>
          <DeviceLabelsSection serial={module.serial} />
          <Section title="Devices" id="module-devices" actions={<span class="muted">{module.protocol}</span>}>
            <Notice error={devices.data?.childrenError && `Children could not be read: ${devices.data.childrenError}`} />
            <div class="devices">
              {all.map((device) => (
                <DeviceCard key={device.id} device={device} moduleSerial={module.serial} onChanged={devices.reload} />
              ))}
            </div>
          </Section>
          <Messages serial={module.serial} devices={all} protocol={module.protocol} onNew={() => void devices.reload()} />
          <DeviceKey serial={module.serial} />
        </>
      )}
    </Page>
  );
}

function Messages({ serial, devices, protocol, onNew }: { serial: string; devices: Device[]; protocol: 'UDM22' | 'UDM23'; onNew: () => void }) {
  const [deviceId, setDeviceId] = useState('');
  const [live, setLive] = useState(true);
  const chartDevice = devices.find((d) => d.id === deviceId) ?? devices[0]!;
  // The chart reads a longer window than the list shows, then grows with live messages.
  const chartHistory = useLoad(() => api.history(serial, { amount: 1000, id: chartDevice.id }), [serial, chartDevice.id]);
  const [liveForChart, setLiveForChart] = useState<Message[]>([]);
  const feed = useMessageFeed(serial, deviceId || undefined, live, (added) => {
    setLiveForChart((current) => [...current, ...added]);
    onNew();
  });
  const points = useMemo(() => {
    const known = new Set((chartHistory.data ?? []).map((m) => m.when));
    const extra = liveForChart.filter((m) => m.device === chartDevice.serial && !known.has(m.when));
    return keepAlivePoints([...(chartHistory.data ?? []), ...extra]);
  }, [chartHistory.data, liveForChart, chartDevice.serial]);

  return (
    <>
      <Section title="Keep-alive voltage and temperature" id="module-chart">
        <Notice error={chartHistory.error} />
        {chartHistory.data && <KeepAliveChart points={points} subject={chartDevice.serial} />}
      </Section>
      <Section
        title="Messages"
        id="module-messages"
        actions={
          <>
            {devices.length > 1 && (
              <Labelled label="Device">
                {(id) => (
                  <select id={id} value={deviceId} onChange={(event) => setDeviceId(event.currentTarget.value)}>
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
              <input type="checkbox" role="switch" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} />
              Live updates
            </label>
          </>
        }
      >
        <p class="visually-hidden" aria-live="polite">
          {feed.arrived > 0 ? `${plural(feed.arrived, 'new message')} received.` : ''}
        </p>
        <Notice error={feed.error} />
        {live && <p class="hint live-hint">New messages appear at the top as they arrive (checked every 5 seconds).</p>}
        {!feed.loading && feed.messages.length === 0 && <p class="empty">No message yet. They appear here as soon as the module transmits.</p>}
        {feed.messages.length > 0 && <MessageTable messages={feed.messages} fresh={feed.fresh} protocol={protocol} showDevice={devices.length > 1 && !deviceId} />}
        {feed.more && (
          <button type="button" class="button" onClick={() => void feed.older()}>
            Older messages
          </button>
        )}
      </Section>
      <Section title="Download" id="module-export">
        <p class="hint">The module's messages (and its children's), oldest first: a column per measurement in CSV, a JSON object per line in NDJSON.</p>
        <ExportLinks serial={serial} />
      </Section>
    </>
  );
}
