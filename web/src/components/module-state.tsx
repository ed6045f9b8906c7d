import type { Alert, ModuleDevice } from '../api/types';
import { formatRelative, formatTime, isoTime } from '../format';
import { db, dbm } from '../signal';
import type { Signal } from '../signal';
import { OpenAlerts } from './alert-list';
import { StatusBadge } from './badge';
import type { Reading } from './measurement-chart';

interface Props {
  module: ModuleDevice;
  /** the newest uplink's signal, when one was received */
  signal: Signal | undefined;
  /** the newest keep-alive reading */
  reading: Reading | undefined;
  alerts: Alert[];
  onChanged: () => Promise<void>;
}

/** What the module is doing now: last seen, battery, signal (RSSI, SNR, stations), open alerts. */
export function ModuleState({ module, signal, reading, alerts, onChanged }: Props) {
  const seen = signal?.when;
  return (
    <div class="module-state">
      <dl class="state-list">
        <div>
          <dt>Last seen</dt>
          <dd data-state="lastseen">
            {seen !== undefined ? (
              <time dateTime={isoTime(seen)} title={formatTime(seen)}>
                {formatRelative(seen)}
              </time>
            ) : (
              (module.lastseen ?? 'never')
            )}
            {seen !== undefined && <span class="muted small-text">{formatTime(seen)}</span>}
          </dd>
        </div>
        <div>
          <dt>Battery</dt>
          <dd data-state="battery">
            <StatusBadge field="battery" value={module.battery} />
            {reading && reading.volts !== null && <span class="reading"> {reading.volts.toFixed(2)} V</span>}
          </dd>
        </div>
        <div>
          <dt>Signal</dt>
          <dd data-state="signal">
            <span title="best RSSI over the stations that heard the last uplink">RSSI {dbm(signal?.rssi ?? null)}</span>
            <span> · SNR {db(signal?.snr ?? null)}</span>
            <span> · {signal ? `${signal.stations} ${signal.stations === 1 ? 'station' : 'stations'}` : 'no uplink yet'}</span>
          </dd>
        </div>
        <div>
          <dt>Temperature</dt>
          <dd data-state="temperature">
            <StatusBadge field="temp" value={module.temp} />
            {reading && reading.celsius !== null && <span class="reading"> {reading.celsius} °C</span>}
          </dd>
        </div>
        <div>
          <dt>Messages</dt>
          <dd>
            {module.msgs} <span class="muted">· {module.losts} lost</span>
          </dd>
        </div>
      </dl>
      <h3 class="subhead">Open alerts ({alerts.length})</h3>
      <OpenAlerts alerts={alerts} onChanged={onChanged} />
    </div>
  );
}
