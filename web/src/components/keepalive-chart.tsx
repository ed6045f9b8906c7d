import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import type { Message } from '../api/types';
import { formatTime } from '../format';

export interface KeepAlivePoint {
  when: number;
  volts: number | null;
  celsius: number | null;
}

/** Keep-alive messages (type keepalive:…) that carry a voltage or a temperature, oldest first. */
export function keepAlivePoints(messages: Message[]): KeepAlivePoint[] {
  const points: KeepAlivePoint[] = [];
  for (const message of messages) {
    if (!message.type.startsWith('keepalive:')) continue;
    const mv = message.extra.voltage_mv;
    const celsius = message.extra.temperature_c;
    if (typeof mv !== 'number' && typeof celsius !== 'number') continue;
    points.push({ when: message.when, volts: typeof mv === 'number' ? mv / 1000 : null, celsius: typeof celsius === 'number' ? celsius : null });
  }
  return points.sort((a, b) => a.when - b.when);
}

function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function range(values: (number | null)[], unit: string, digits: number): string {
  const numbers = values.filter((v): v is number => v !== null);
  if (numbers.length === 0) return `no ${unit} readings`;
  return `${Math.min(...numbers).toFixed(digits)} to ${Math.max(...numbers).toFixed(digits)} ${unit}`;
}

/**
 * Voltage (V, left axis) and temperature (°C, right axis) over time. uPlot (≈50 kB) is loaded only
 * when a chart is shown, so the rest of the dashboard does not pay for it.
 */
export function KeepAliveChart({ points, subject }: { points: KeepAlivePoint[]; subject: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string>();
  const summary = useMemo(
    () =>
      `Keep-alives of ${subject}: ${points.length} readings, voltage ${range(points.map((p) => p.volts), 'V', 2)}, temperature ${range(points.map((p) => p.celsius), '°C', 0)}.`,
    [points, subject],
  );

  useEffect(() => {
    const target = box.current;
    if (!target || points.length === 0) return;
    let chart: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')])
      .then(([{ default: UPlot }]) => {
        if (cancelled) return;
        const axis = { stroke: cssColor('--text-muted'), grid: { stroke: cssColor('--border') }, ticks: { stroke: cssColor('--border') } };
        const volts = cssColor('--chart-volts');
        const celsius = cssColor('--chart-celsius');
        const options: uPlot.Options = {
          width: Math.max(280, target.clientWidth),
          height: 260,
          scales: { x: { time: true }, V: { auto: true }, C: { auto: true } },
          series: [
            { label: 'Time', value: (_u, v) => (v === null ? '—' : formatTime(v * 1000)) },
            { label: 'Voltage', scale: 'V', stroke: volts, width: 2, points: { show: true, size: 5 }, spanGaps: true, value: (_u, v) => (v === null ? '—' : `${v.toFixed(2)} V`) },
            { label: 'Temperature', scale: 'C', stroke: celsius, width: 2, dash: [6, 3], points: { show: true, size: 5 }, spanGaps: true, value: (_u, v) => (v === null ? '—' : `${v} °C`) },
          ],
          axes: [
            axis,
            { ...axis, scale: 'V', label: 'Voltage (V)', values: (_u, ticks) => ticks.map((t) => t.toFixed(2)) },
            { ...axis, scale: 'C', side: 1, label: 'Temperature (°C)', grid: { show: false } },
          ],
        };
        const data: uPlot.AlignedData = [points.map((p) => p.when / 1000), points.map((p) => p.volts), points.map((p) => p.celsius)];
        chart = new UPlot(options, data, target);
        observer = new ResizeObserver(() => chart?.setSize({ width: Math.max(280, target.clientWidth), height: 260 }));
        observer.observe(target);
      })
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [points]);

  if (points.length === 0) {
    return <p class="empty">No keep-alive with a voltage or temperature yet. Modules send one every keep-alive interval (usually 24 h).</p>;
  }
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={summary} class="chart-canvas" />
      {failed && <p role="alert">The chart could not be drawn: {failed}</p>}
      <figcaption class="hint">{summary}</figcaption>
      <details>
        <summary>Readings as a table</summary>
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">Keep-alive readings of {subject}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Voltage</th>
                <th scope="col">Temperature</th>
              </tr>
            </thead>
            <tbody>
              {[...points]
                .reverse()
                .slice(0, 100)
                .map((p) => (
                  <tr key={p.when}>
                    <td>{formatTime(p.when)}</td>
                    <td>{p.volts === null ? '—' : `${p.volts.toFixed(2)} V`}</td>
                    <td>{p.celsius === null ? '—' : `${p.celsius} °C`}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
