import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Explained, Protocol } from '../api/types';
import { Badge } from '../components/badge';
import { Labelled, TextField } from '../components/field';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { formatValue } from '../format';
import { useAction } from '../hooks';
import { navigate } from '../router';

const EXAMPLES: [string, Protocol, string][] = [
  ['020300189167', 'UDM23', 'keep-alive'],
  ['25000632', 'UDM23', 'temperature low'],
  ['00010100202AC5B3FC801118', 'UDM23', 'GPS position'],
  ['00039E1518', 'UDM22', 'keep-alive'],
];

const asProtocol = (value: string | null): Protocol => (value?.toUpperCase() === 'UDM22' ? 'UDM22' : 'UDM23');

/** Frame and protocol in; decoded values and the field-by-field explanation out. The URL keeps both. */
export function DecoderPage({ query }: { query: URLSearchParams }) {
  const [frame, setFrame] = useState(query.get('frame') ?? '');
  const [protocol, setProtocol] = useState<Protocol>(asProtocol(query.get('protocol')));
  const [result, setResult] = useState<Explained>();
  const decode = useAction(async (hex: string, chosen: Protocol) => {
    // An error must never sit under the result of the previous frame.
    setResult(undefined);
    // As the API takes it: an optional 0x prefix, spaces between bytes, either case.
    const compact = hex.replace(/\s+/g, '');
    const clean = (/^0x/i.test(compact) ? compact.slice(2) : compact).toUpperCase();
    if (!/^[0-9A-F]*$/.test(clean) || clean === '') throw new Error('Enter the frame as hexadecimal digits, e.g. 020300189167 or 0x02 03 00 18 91 67.');
    setResult(await api.explain(clean, chosen));
    navigate(`/decoder?frame=${clean}&protocol=${chosen}`, { replace: true });
  });
  // A link from a message (or a shared URL) decodes at once.
  useEffect(() => {
    const initial = query.get('frame');
    if (initial) void decode.run(initial, asProtocol(query.get('protocol')));
    // Only on arrival: later decodes come from the form.
  }, []);

  const submit = (hex: string, chosen: Protocol) => {
    setFrame(hex);
    setProtocol(chosen);
    void decode.run(hex, chosen);
  };

  return (
    <Page title="Decoder" lead="Decode a UDM22 or UDM23 frame and see what each bit means.">
      <Section title="Frame" id="decoder-input">
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            submit(frame, protocol);
          }}
        >
          <TextField
            label="Frame (hex)"
            value={frame}
            onValue={setFrame}
            required
            mono
            class="grow"
            autoComplete="off"
            spellcheck={false}
            placeholder="020300189167"
            hint="2 to 12 bytes, as the network delivers them; a 0x prefix and spaces are fine."
          />
          <Labelled label="Protocol">
            {(id) => (
              <select id={id} value={protocol} onChange={(event) => setProtocol(asProtocol(event.currentTarget.value))}>
                <option value="UDM23">UDM23</option>
                <option value="UDM22">UDM22</option>
              </select>
            )}
          </Labelled>
          <button type="submit" class="button primary" disabled={decode.busy}>
            Decode
          </button>
        </form>
        <p class="hint">
          Examples:{' '}
          {EXAMPLES.map(([hex, proto, what]) => (
            <button key={hex} type="button" class="link-button" onClick={() => submit(hex, proto)}>
              {what} ({proto} <span class="mono">{hex}</span>)
            </button>
          ))}
        </p>
        <Notice error={decode.error} />
      </Section>
      {result && <Result result={result} />}
    </Page>
  );
}

function Result({ result }: { result: Explained }) {
  const msg = result.decoded.msg;
  return (
    <>
      <Section title="Decoded" id="decoder-result" actions={result.valid ? <Badge tone="ok">Valid {result.protocol} frame</Badge> : <Badge tone="bad">Invalid frame</Badge>}>
        {!result.valid && (
          <p class="notice notice-error">
            {result.reason ?? 'This is not a valid frame.'} The decode operation answers <code>{'{}'}</code> for it.
          </p>
        )}
        {msg && (
          <dl class="details" aria-label="Decoded values">
            <dt>Frame type</dt>
            <dd>
              <code>{msg.extra.frame_type}</code>
            </dd>
            <dt>Code</dt>
            <dd>
              <code>{msg.extra.code}</code>
            </dd>
            <dt>Entry id</dt>
            <dd>{msg.extra.entry_id === 0 ? '0 (the module itself)' : `${msg.extra.entry_id} (child ${msg.extra.entry_id})`}</dd>
            {Object.entries(msg.custom).map(([name, value]) => (
              <Fragment key={name}>
                <dt>
                  <code>{name}</code>
                </dt>
                <dd>{formatValue(name, value)}</dd>
              </Fragment>
            ))}
          </dl>
        )}
        <details>
          <summary>As the decode operation answers it (JSON)</summary>
          <pre class="code">{JSON.stringify(result.decoded, null, 2)}</pre>
        </details>
      </Section>
      <Section title="Field by field" id="decoder-fields">
        {result.fields.length === 0 ? (
          <p class="empty">No field could be read.</p>
        ) : (
          <div class="table-scroll">
            <table class="fields stackable">
              <caption class="visually-hidden">Fields of frame {result.frame}, in frame order</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Bits</th>
                  <th scope="col">Raw</th>
                  <th scope="col">Meaning</th>
                </tr>
              </thead>
              <tbody>
                {result.fields.map((field, index) => (
                  <tr key={`${field.name}-${index}`}>
                    <th scope="row">{field.name}</th>
                    <td class="mono" data-label="Bits" title={`byte ${field.offset}, ${field.bitLength} bits`}>
                      {field.bits}
                    </td>
                    <td class="mono break" data-label="Raw">
                      {field.raw}
                    </td>
                    <td data-label="Meaning">{field.meaning}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </>
  );
}
