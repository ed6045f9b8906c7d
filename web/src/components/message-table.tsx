import type { Message, Protocol } from '../api/types';
import { formatTime, isoTime } from '../format';
import { measurements } from '../measurements';
import { dbm } from '../signal';
import { Link } from '../router';
import { messageKey } from './message-feed';

/** Messages as a table: time, device, type, decoded values, signal, station and the frame. */
export function MessageTable({ messages, fresh, protocol, showDevice }: { messages: Message[]; fresh: Set<string>; protocol: Protocol; showDevice: boolean }) {
  return (
    <div class="table-scroll">
      <table class="messages stackable">
        <caption class="visually-hidden">Messages, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            {showDevice && <th scope="col">Device</th>}
            <th scope="col">Type</th>
            <th scope="col">Values</th>
            <th scope="col">Signal</th>
            <th scope="col">Station</th>
            <th scope="col">Frame</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => {
            const key = messageKey(message);
            const values = measurements(message.extra);
            const rssi = Number(message.lvl);
            return (
              <tr key={key} class={fresh.has(key) ? 'fresh' : undefined} data-when={message.when} data-type={message.type}>
                <td data-label="Time">
                  <time dateTime={isoTime(message.when)}>{formatTime(message.when)}</time>
                  {fresh.has(key) && <span class="new-tag">new</span>}
                </td>
                {showDevice && (
                  <td class="mono" data-label="Device">
                    {message.device}
                  </td>
                )}
                <td data-label="Type">
                  <code>{message.type}</code>
                </td>
                <td data-label="Values">
                  {values.length === 0 ? (
                    <span class="muted">—</span>
                  ) : (
                    <ul class="values">
                      {values.map((value) => (
                        <li key={value.key} title={value.key}>
                          <span class="muted">{value.label}</span> <span>{value.text}</span>
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                {/* The wire writes a missing RSSI as "0": no station hears anything at 0 dBm. */}
                <td data-label="Signal">{dbm(message.lvl === '0' || !Number.isFinite(rssi) ? null : rssi)}</td>
                <td class="mono" data-label="Station">
                  {message.station || '—'}
                </td>
                <td data-label="Frame">
                  <Link
                    href={`/decoder?frame=${encodeURIComponent(message.payload)}&protocol=${protocol}`}
                    class="mono"
                    aria-label={`Explain frame ${message.payload}`}
                  >
                    {message.payload}
                  </Link>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
