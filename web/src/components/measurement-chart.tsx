import { useMemo } from 'preact/hooks';
import type { Message } from '../api/types';
import { formatTime } from '../format';
import { withGaps } from '../signal';
import { TimeChart } from './time-chart';
import type { ChartSeries } from './time-chart';

export interface Reading {
  /**
   * The network's time of the uplink, epoch ms: the x axis, and what lost uplinks are dated by. (A
   * message's `when` is snsr's reception time, which a late callback would put out of place.)
   */
  when: number;
  volts: number | null;
  celsius: number | null;
  /** the keep-alive interval the module announced, hours */
  intervalH: number | null;
}

/** Keep-alive messages (type keepalive:…) that carry a voltage or a temperature, oldest first. */
export function keepAliveReadings(messages: Message[]): Reading[] {
  const readings: Reading[] = [];
  for (const message of messages) {
    if (!message.type.startsWith('keepalive:')) continue;
    const { voltage_mv: mv, temperature_c: celsius, interval_h: interval, time } = message.extra;
    if (typeof mv !== 'number' && typeof celsius !== 'number') continue;
    readings.push({
      when: typeof time === 'number' ? time * 1000 : message.when,
      volts: typeof mv === 'number' ? mv / 1000 : null,
      celsius: typeof celsius === 'number' ? celsius : null,
      intervalH: typeof interval === 'number' && interval > 0 ? interval : null,
    });
  }
  return readings.sort((a, b) => a.when - b.when);
}

function range(values: (number | null)[], unit: string, digits: number): string {
  const numbers = values.filter((v): v is number => v !== null);
  if (numbers.length === 0) return `no ${unit} readings`;
  return `${Math.min(...numbers).toFixed(digits)} to ${Math.max(...numbers).toFixed(digits)} ${unit}`;
}

/**
 * Keep-alive voltage (V, left axis) and temperature (°C, right axis) over time. The line breaks where
 * uplinks were lost between two readings (a sequence-number gap in `lost`) or where a keep-alive is
 * missing (more than one and a half announced intervals between two).
 */
export function MeasurementChart({ readings, lost, subject }: { readings: Reading[]; lost: { after: number; before: number }[]; subject: string }) {
  const shown = useMemo(
    () =>
      withGaps(
        readings,
        (a, b) => lost.some((span) => span.after < b.when && span.before > a.when) || (a.intervalH !== null && b.when - a.when > 1.5 * a.intervalH * 3_600_000),
        (when) => ({ when, volts: null, celsius: null, intervalH: null }),
      ),
    [readings, lost],
  );
  const gaps = shown.length - readings.length;
  const times = useMemo(() => shown.map((r) => r.when), [shown]);
  const series = useMemo<ChartSeries[]>(
    () => [
      { label: 'Voltage', unit: 'V', color: '--chart-volts', digits: 2, scale: 'V', values: shown.map((r) => r.volts) },
      { label: 'Temperature', unit: '°C', color: '--chart-celsius', digits: 1, scale: 'C', values: shown.map((r) => r.celsius), dash: [6, 3] },
    ],
    [shown],
  );
  if (readings.length === 0) {
    return <p class="empty">No keep-alive with a voltage or temperature yet. Modules send one every keep-alive interval (usually 24 h).</p>;
  }
  const summary =
    `Keep-alives of ${subject}: ${readings.length} readings, voltage ${range(readings.map((r) => r.volts), 'V', 2)}, ` +
    `temperature ${range(readings.map((r) => r.celsius), '°C', 0)}${gaps > 0 ? `; the line breaks at ${gaps} ${gaps === 1 ? 'gap' : 'gaps'} where messages were lost` : ''}.`;
  return (
    <>
      <TimeChart times={times} series={series} summary={summary} />
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
              {[...readings]
                .reverse()
                .slice(0, 100)
                .map((r) => (
                  <tr key={r.when}>
                    <td>{formatTime(r.when)}</td>
                    <td>{r.volts === null ? '—' : `${r.volts.toFixed(2)} V`}</td>
                    <td>{r.celsius === null ? '—' : `${r.celsius} °C`}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
