import { useEffect, useRef, useState } from 'preact/hooks';
import type uPlot from 'uplot';
import { formatTime } from '../format';

export interface ChartSeries {
  label: string;
  unit: string;
  /** A CSS custom property holding the colour, e.g. `--chart-volts`. */
  color: string;
  digits: number;
  /** The y scale (one axis per scale: the first on the left, the second on the right). */
  scale: string;
  /** null: no value there — the line breaks (a lost message, a missing reading). */
  values: (number | null)[];
  dash?: number[];
  bars?: boolean;
}

export interface ChartProps {
  /** epoch ms, ascending */
  times: number[];
  series: ChartSeries[];
  /** Text alternative: what the chart shows, for screen readers and as the caption. */
  summary: string;
  height?: number;
  /** The x axis' values are hours (bars), not instants. */
  hourly?: boolean;
}

function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

const valueText = (series: ChartSeries, value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${value.toFixed(series.digits)} ${series.unit}`.trim();

/** A floating box at the cursor with the time and every series' value: uPlot's legend sits below the chart. */
function tooltipPlugin(series: ChartSeries[], hourly: boolean): uPlot.Plugin {
  let tip: HTMLDivElement;
  return {
    hooks: {
      init: (u) => {
        tip = document.createElement('div');
        tip.className = 'chart-tip';
        tip.setAttribute('aria-hidden', 'true');
        u.over.appendChild(tip);
      },
      setCursor: (u) => {
        const { idx, left, top } = u.cursor;
        if (idx === null || idx === undefined || left === undefined || left < 0 || top === undefined) {
          tip.style.display = 'none';
          return;
        }
        const when = (u.data[0][idx] ?? 0) * 1000;
        const lines = series.map((s, k) => `${s.label}: ${valueText(s, u.data[k + 1]?.[idx])}`);
        tip.textContent = '';
        const head = document.createElement('strong');
        head.textContent = hourly ? `Hour from ${formatTime(when - 1_800_000)}` : formatTime(when);
        tip.append(head, ...lines.map((line) => Object.assign(document.createElement('div'), { textContent: line })));
        tip.style.display = 'block';
        const width = u.over.clientWidth;
        tip.style.left = `${Math.min(left + 12, Math.max(0, width - tip.offsetWidth))}px`;
        tip.style.top = `${Math.max(0, top - tip.offsetHeight - 8)}px`;
      },
    },
  };
}

/**
 * A time chart: a readable local-time axis, one y axis per unit with the unit in its label, a
 * tooltip at the cursor, and gaps where a value is null. uPlot (≈50 kB) is loaded with the first
 * chart, so pages without one do not pay for it.
 */
export function TimeChart({ times, series, summary, height = 240, hourly = false }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string>();

  useEffect(() => {
    const target = box.current;
    if (!target || times.length === 0) return;
    let chart: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')])
      .then(([{ default: UPlot }]) => {
        if (cancelled) return;
        const axis = { stroke: cssColor('--text-muted'), grid: { stroke: cssColor('--border') }, ticks: { stroke: cssColor('--border') } };
        const scales = [...new Set(series.map((s) => s.scale))];
        const size = () => ({ width: Math.max(240, target.clientWidth), height });
        const options: uPlot.Options = {
          ...size(),
          plugins: [tooltipPlugin(series, hourly)],
          // The tooltip shows the values: uPlot's legend under the chart would only repeat them.
          legend: { show: false },
          scales: {
            // Hourly bars stand at the middle of their hour, with half an hour of room at each end.
            x: { time: true, ...(hourly && { range: (_u: uPlot, min: number, max: number): uPlot.Range.MinMax => [min - 1800, max + 1800] }) },
            ...Object.fromEntries(scales.map((scale) => [scale, { auto: true }])),
          },
          series: [
            { label: 'Time', value: (_u, v) => (v === null ? '—' : formatTime(v * 1000)) },
            ...series.map((s) => ({
              label: s.unit ? `${s.label} (${s.unit})` : s.label,
              scale: s.scale,
              stroke: cssColor(s.color),
              width: s.bars ? 1 : 2,
              ...(s.bars ? { fill: cssColor(s.color), paths: UPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } } : { points: { show: true, size: 4 } }),
              ...(s.dash && { dash: s.dash }),
              spanGaps: false,
              value: (_u: uPlot, v: number | null) => valueText(s, v),
            })),
          ],
          axes: [
            { ...axis, label: 'Local time', labelSize: 20, space: 70 },
            ...scales.map((scale, k) => {
              const first = series.find((s) => s.scale === scale)!;
              const unitLabel = series
                .filter((s) => s.scale === scale)
                .map((s) => (s.unit ? `${s.label} (${s.unit})` : s.label))
                .join(', ');
              return {
                ...axis,
                scale,
                label: unitLabel,
                side: k === 0 ? 3 : 1,
                ...(k > 0 && { grid: { show: false } }),
                values: (_u: uPlot, ticks: number[]) => ticks.map((t) => t.toFixed(first.digits)),
              };
            }),
          ],
        };
        const data: uPlot.AlignedData = [times.map((t) => t / 1000), ...series.map((s) => s.values)];
        chart = new UPlot(options, data, target);
        observer = new ResizeObserver(() => chart?.setSize(size()));
        observer.observe(target);
      })
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
    return () => {
      cancelled = true;
      observer?.disconnect();
      chart?.destroy();
    };
  }, [times, series, height, hourly]);

  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={summary} class="chart-canvas" style={{ minHeight: `${height}px` }} />
      {failed && <p role="alert">The chart could not be drawn: {failed}</p>}
      <figcaption class="hint">{summary}</figcaption>
    </figure>
  );
}
