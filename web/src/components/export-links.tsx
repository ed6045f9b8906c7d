import { useState } from 'preact/hooks';
import { url } from '../api/client';
import { Labelled } from './field';

/**
 * Download links for a module's messages (CSV for spreadsheets, NDJSON for notebooks) over an
 * optional date range. Plain links: the browser streams the file to disk with the session cookie,
 * so a long history never passes through the page's memory.
 */
export function ExportLinks({ serial }: { serial: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const href = (format: 'csv' | 'ndjson') =>
    url(`/iot/developers/modules/${encodeURIComponent(serial)}/messages.${format}`, { from: from || undefined, to: to || undefined });
  const reversed = from !== '' && to !== '' && from > to;
  return (
    <div class="export-links">
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
