import { useState } from 'preact/hooks';
import { url } from '../api/client';
import { Labelled } from './field';

/**
 * Download links for a module's messages, or its raw uplinks with their station reports (CSV for
 * spreadsheets, NDJSON for notebooks), over an optional date range. Plain links: the browser streams the file to disk with the session cookie,
 * so a long history never passes through the page's memory.
 */
export function ExportLinks({ serial }: { serial: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [what, setWhat] = useState<'messages' | 'raw'>('messages');
  const href = (format: 'csv' | 'ndjson') =>
    url(`/iot/developers/modules/${encodeURIComponent(serial)}/${what}.${format}`, { from: from || undefined, to: to || undefined });
  const reversed = from !== '' && to !== '' && from > to;
  return (
    <div class="export-links">
      <Labelled label="What">
        {(id) => (
          <select id={id} value={what} onChange={(event) => setWhat(event.currentTarget.value as 'messages' | 'raw')}>
            <option value="messages">Decoded messages</option>
            <option value="raw">Raw uplinks with station reports</option>
          </select>
        )}
      </Labelled>
      <Labelled label="From">{(id) => <input id={id} type="date" value={from} onInput={(event) => setFrom(event.currentTarget.value)} />}</Labelled>
      <Labelled label="To (excluded)">{(id) => <input id={id} type="date" value={to} onInput={(event) => setTo(event.currentTarget.value)} />}</Labelled>
      {reversed ? (
        <p class="hint" role="alert">
          From must not be after To.
        </p>
      ) : (
        <>
          <a class="button" href={href('csv')} download>
            Download CSV
          </a>
          <a class="button" href={href('ndjson')} download>
            Download NDJSON
          </a>
        </>
      )}
    </div>
  );
}
