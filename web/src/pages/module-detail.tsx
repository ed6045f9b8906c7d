import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Device, Message } from '../api/types';
import { DeviceCard } from '../components/device-card';
import { DeviceKey } from '../components/device-key';
import { DeviceLabelsSection } from '../components/device-labels';
import { ExportLinks } from '../components/export-links';
import { MeasurementChart, keepAliveReadings } from '../components/measurement-chart';
import { ModuleHistory } from '../components/module-history';
import { ModuleState } from '../components/module-state';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { RetentionControl } from '../components/retention-control';
import { SignalChart } from '../components/signal-chart';
import { errorText, useLoad } from '../hooks';
import { useDebouncedCall, useLiveEvents } from '../live-hooks';
import { Link } from '../router';
import { lostSpans, signalOf } from '../signal';

/** Uplinks the signal chart and the loss detection read. */
const RAW_WINDOW = 500;
/** Messages the measurement chart reads (the history's maximum). */
const CHART_WINDOW = 1000;

/**
 * A module. The first screen holds its state now (last seen, battery, signal, open alerts) beside
 * the voltage and temperature chart; below, the paged message history, the signal chart, its
 * devices with their flags, names and tags, download and retention, and the device key. While
 * Live updates is on, the module's live stream adds messages as they arrive and reads the state
 * again after messages and alerts.
 */
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
  const alerts = useLoad(() => api.moduleAlerts(serial, { open: true, limit: 100 }), [serial]);
  const raws = useLoad(() => api.rawHistory(serial, { limit: RAW_WINDOW }), [serial]);
  const [deviceId, setDeviceId] = useState('');
  const [live, setLive] = useState(true);
  const module = devices.data?.module;
  const all = module ? [module, ...devices.data!.children] : [];
  const chartDevice = all.find((d) => d.id === deviceId) ?? module;

  // The chart reads a longer window than a page of the history, then grows with live messages.
  const chartHistory = useLoad(
    () => (chartDevice ? api.history(serial, { amount: CHART_WINDOW, id: chartDevice.id }) : Promise.resolve([])),
    [serial, chartDevice?.id],
  );
  const [arrived, setArrived] = useState<Message[]>([]);
  const readings = useMemo(() => {
    const known = new Set((chartHistory.data ?? []).map((m) => m.when));
    const extra = arrived.filter((m) => m.device === chartDevice?.serial && !known.has(m.when));
    return keepAliveReadings([...(chartHistory.data ?? []), ...extra]);
  }, [chartHistory.data, arrived, chartDevice?.serial]);
  const signals = useMemo(() => (raws.data ?? []).map(signalOf), [raws.data]);
  const lost = useMemo(() => lostSpans(signals), [signals]);

  // A burst of messages or alerts reads the state a few times, not once each.
  const refreshState = useDebouncedCall(
    () => {
      void devices.reload();
      void alerts.reload();
      void raws.reload();
    },
    500,
    3000,
  );
  const refreshAlerts = useDebouncedCall(
    () => {
      void devices.reload();
      void alerts.reload();
    },
    500,
    3000,
  );
  useLiveEvents(live && module ? { serial: module.serial } : null, (type) => {
    if (type === 'alert' || type === 'resync') refreshAlerts();
  });
  const onNew = (added: Message[]) => {
    setArrived((current) => [...current, ...added]);
    refreshState();
  };
  const reloadState = async () => {
    await Promise.all([devices.reload(), alerts.reload()]);
  };

  return (
    <Page title={`Module ${module?.serial ?? serial.toUpperCase()}`} lead={<Link href="/modules">← All modules</Link>}>
      <Notice error={devices.error} />
      {module && (
        <>
          <div class="module-top">
            <Section title="Now" id="module-now" actions={<span class="muted">{module.protocol}</span>}>
              <Notice error={alerts.error ?? raws.error} />
              <ModuleState module={module} signal={signals[0]} reading={readings.at(-1)} alerts={alerts.data ?? []} onChanged={reloadState} />
            </Section>
            <Section title={`Voltage and temperature${chartDevice && chartDevice.id !== module.id ? ` of ${chartDevice.serial}` : ''}`} id="module-chart">
              <Notice error={chartHistory.error} />
              {chartHistory.data && <MeasurementChart readings={readings} lost={lost} subject={chartDevice?.serial ?? module.serial} />}
            </Section>
          </div>
          <ModuleHistory serial={module.serial} devices={all} protocol={module.protocol} deviceId={deviceId} onDevice={setDeviceId} live={live} onLive={setLive} onNew={onNew} />
          <Section title="Signal" id="module-signal">
            {raws.data && <SignalChart signals={signals} subject={module.serial} />}
          </Section>
          <Section title="Devices" id="module-devices">
            <Notice error={devices.data?.childrenError && `Children could not be read: ${devices.data.childrenError}`} />
            <div class="devices">
              {all.map((device) => (
                <DeviceCard key={device.id} device={device} moduleSerial={module.serial} onChanged={reloadState} />
              ))}
            </div>
          </Section>
          <DeviceLabelsSection serial={module.serial} />
          <Section title="Download" id="module-export">
            <p class="hint">The module's messages (and its children's), oldest first: a column per measurement in CSV, a JSON object per line in NDJSON. Raw uplinks: one per line with every station that heard it.</p>
            <ExportLinks serial={module.serial} />
          </Section>
          <Section title="Retention" id="module-retention">
            <RetentionControl serial={module.serial} />
          </Section>
          <DeviceKey serial={module.serial} />
        </>
      )}
    </Page>
  );
}
