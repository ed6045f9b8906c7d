import { useMemo } from 'preact/hooks';
import { dbm, withGaps } from '../signal';
import type { Signal } from '../signal';
import { TimeChart } from './time-chart';
import type { ChartSeries } from './time-chart';

/** RSSI (dBm, left) and SNR (dB, right) of each uplink; the line breaks where uplinks were lost. */
export function SignalChart({ signals, subject }: { signals: Signal[]; subject: string }) {
  const shown = useMemo(() => {
    const sorted = [...signals].sort((a, b) => a.when - b.when);
    return withGaps(
      sorted,
      (a, b) => a.seq !== undefined && b.seq !== undefined && (b.seq - a.seq + 4096) % 4096 > 1,
      (when) => ({ when, rssi: null, snr: null, stations: 0, seq: undefined }),
    );
  }, [signals]);
  const times = useMemo(() => shown.map((s) => s.when), [shown]);
  const series = useMemo<ChartSeries[]>(
    () => [
      { label: 'RSSI', unit: 'dBm', color: '--chart-volts', digits: 0, scale: 'dBm', values: shown.map((s) => s.rssi) },
      { label: 'SNR', unit: 'dB', color: '--chart-celsius', digits: 1, scale: 'dB', values: shown.map((s) => s.snr), dash: [6, 3] },
    ],
    [shown],
  );
  if (signals.length === 0) return <p class="empty">No uplink received yet.</p>;
  const rssis = signals.map((s) => s.rssi).filter((v): v is number => v !== null);
  const summary = `Signal of the last ${signals.length} uplinks of ${subject}: RSSI ${
    rssis.length ? `${dbm(Math.min(...rssis))} to ${dbm(Math.max(...rssis))}` : 'not reported'
  }, heard by ${Math.min(...signals.map((s) => s.stations))} to ${Math.max(...signals.map((s) => s.stations))} stations${shown.length > signals.length ? `; breaks where uplinks were lost` : ''}.`;
  return <TimeChart times={times} series={series} summary={summary} height={200} />;
}
