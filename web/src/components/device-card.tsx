import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Device, Flag } from '../api/types';
import { useAction } from '../hooks';
import { DeviceBadges } from './badge';
import { TextField } from './field';
import { Notice } from './notice';

const STATUS = /^[A-Z][A-Z0-9_]{0,31}$/;
const BIDIR = /^[0-9A-Fa-f]{16}$/;

/** One device (the module itself or a child): its state, counters and the four flags. */
export function DeviceCard({ device, moduleSerial, onChanged }: { device: Device; moduleSerial: string; onChanged: () => Promise<void> }) {
  const [status, setStatus] = useState(device.status);
  const [bidir, setBidir] = useState(device.bidirval ?? '');
  useEffect(() => setStatus(device.status), [device.status]);
  useEffect(() => setBidir(device.bidirval ?? ''), [device.bidirval]);

  // Controls stay enabled while a change is sent: disabling the focused one would drop keyboard focus.
  const flag = useAction(async (name: Flag, value: string | boolean, done: string) => {
    await api.setFlag(name, moduleSerial, device.id, value);
    await onChanged();
    return done;
  });
  const acknowledge = useAction(async () => {
    await api.ackAlerts(device.serial);
    await onChanged();
    return `Alerts of ${device.serial} acknowledged.`;
  });
  const label = device.index === 0 ? 'Module' : `Child ${device.index}`;

  return (
    <article class="device" aria-labelledby={`device-${device.id}`} data-device={device.serial}>
      <header class="device-header">
        <h3 id={`device-${device.id}`}>
          <span class="mono">{device.serial}</span> <span class="muted">· {label}</span>
        </h3>
        <DeviceBadges device={device} />
      </header>
      <dl class="stats">
        <div>
          <dt>Messages</dt>
          <dd>{device.msgs}</dd>
        </div>
        <div>
          <dt>Alerts</dt>
          <dd>{device.alerts}</dd>
        </div>
        <div>
          <dt>Acknowledged</dt>
          <dd>
            {device.alerts_ack}
            {device.alerts > device.alerts_ack && (
              <>
                {' '}
                <button type="button" class="button" onClick={() => void acknowledge.run()}>
                  Acknowledge
                </button>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Lost frames</dt>
          <dd>{device.losts}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{device.type}</dd>
        </div>
        <div>
          <dt>First seen</dt>
          <dd>{device.firstseen ?? '—'}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{device.lastseen ?? '—'}</dd>
        </div>
      </dl>
      <fieldset class="flags" aria-busy={flag.busy}>
        <legend>Flags of {device.serial}</legend>
        <div class="switches">
          <label class="check">
            <input
              type="checkbox"
              role="switch"
              checked={device.active}
              onChange={(event) => void flag.run('active', event.currentTarget.checked, `${device.serial} is now ${event.currentTarget.checked ? 'active' : 'inactive'}.`)}
            />
            Active
          </label>
          <label class="check">
            <input
              type="checkbox"
              role="switch"
              checked={device.watched}
              onChange={(event) => void flag.run('watch', event.currentTarget.checked, `${device.serial} is ${event.currentTarget.checked ? 'now watched' : 'no longer watched'}.`)}
            />
            Watched
          </label>
        </div>
        <div class="flag-forms">
          <form
            class="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              void flag.run('status', status, `Status of ${device.serial} set to ${status}.`);
            }}
          >
            <TextField
              label="Functional status"
              value={status}
              onValue={(value) => setStatus(value.toUpperCase())}
              required
              pattern={STATUS.source.slice(1, -1)}
              maxLength={32}
              mono
              hint="Upper-case letters, digits and _, starting with a letter (e.g. IN_SERVICE)."
            />
            <button type="submit" class="button" disabled={!STATUS.test(status)}>
              Set status
            </button>
          </form>
          <form
            class="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              void flag.run('bidirval', bidir.toUpperCase(), `Bidir value of ${device.serial} set.`);
            }}
          >
            <TextField
              label="Bidir value"
              value={bidir}
              onValue={setBidir}
              pattern={BIDIR.source.slice(1, -1)}
              maxLength={16}
              mono
              hint="16 hex digits sent to the module in its next downlink."
            />
            <button type="submit" class="button" disabled={!BIDIR.test(bidir)}>
              Set value
            </button>
            <button type="button" class="button" onClick={() => void flag.run('bidirval', '', `Bidir value of ${device.serial} cleared.`)}>
              Clear
            </button>
          </form>
        </div>
      </fieldset>
      <Notice error={flag.error ?? acknowledge.error} done={flag.done ?? acknowledge.done} />
    </article>
  );
}
