import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { ApiKey, CreatedKey, KeyScope } from '../api/types';
import { confirmAction } from '../components/confirm';
import { CopyButton } from '../components/copy-button';
import { Labelled, TextField } from '../components/field';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { formatTime } from '../format';
import { errorText, useAction, useLoad } from '../hooks';

const DAY = 86_400_000;
const EXPIRIES: [string, number | null][] = [
  ['Never', null],
  ['In 7 days', 7],
  ['In 30 days', 30],
  ['In 90 days', 90],
  ['In a year', 365],
];

/** Named API keys: created with a scope and an expiry, the secret shown once, revocable one by one. */
export function KeysPage() {
  const keys = useLoad(() => api.keys(), []);
  const [created, setCreated] = useState<CreatedKey>();
  return (
    <Page title="API keys" lead="Give each script or service its own key: revoke one without touching the others or your account token.">
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          keys.set([...(keys.data ?? []), key]);
        }}
      />
      <Section title="Your API keys" id="keys-list">
        <Notice error={keys.error} />
        {keys.data && keys.data.length === 0 && <p class="empty">No API key yet.</p>}
        {keys.data && keys.data.length > 0 && <KeyTable keys={keys.data} onRevoked={(id) => keys.set(keys.data!.filter((k) => k.id !== id))} />}
      </Section>
    </Page>
  );
}

function CreateKey({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('read');
  const [days, setDays] = useState('90');
  // A new form after each key: the emptied Name field must not look like a mistake (:user-invalid).
  const [round, setRound] = useState(0);
  const create = useAction(async () => {
    const expires = days === '' ? null : Date.now() + Number(days) * DAY;
    onCreated(await api.createKey(name.trim(), scope, expires));
    setName('');
    setRound(round + 1);
  });
  return (
    <Section title="Create an API key" id="keys-create">
      <form
        key={round}
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <TextField label="Name" value={name} onValue={setName} required maxLength={64} hint="What uses it, e.g. grafana or ci." />
        <Labelled label="Access">
          {(id) => (
            <select id={id} value={scope} onChange={(event) => setScope(event.currentTarget.value as KeyScope)}>
              <option value="read">Read only</option>
              <option value="full">Full access</option>
            </select>
          )}
        </Labelled>
        <Labelled label="Expires">
          {(id) => (
            <select id={id} value={days} onChange={(event) => setDays(event.currentTarget.value)}>
              {EXPIRIES.map(([label, value]) => (
                <option key={label} value={value === null ? '' : String(value)}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Labelled>
        <button type="submit" class="button primary" disabled={create.busy}>
          Create key
        </button>
      </form>
      <Notice error={create.error} />
      <p class="hint">A read-only key may read everything (modules, messages, apps, deliveries) and gets 403 on any change.</p>
    </Section>
  );
}

function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  return (
    <section class="card card-highlight" aria-labelledby="new-key-title">
      <h2 id="new-key-title">Key “{created.name}” created</h2>
      <p role="status" class="notice notice-done">
        Copy its token now: snsr keeps only a hash of it and cannot show it again.
      </p>
      <div class="field">
        <label for="new-key-token">Token (send it as <code>Authorization: Basic &lt;token&gt;</code>)</label>
        <div class="input-row">
          <input id="new-key-token" class="mono" type="text" readOnly value={created.token} autoComplete="off" spellcheck={false} />
          <CopyButton text={created.token} label="Copy API key token" />
        </div>
      </div>
      <details>
        <summary>Example request</summary>
        <pre class="code">{`curl -H "Authorization: Basic ${created.token}" \\\n  ${location.origin}/iot/developers/modules.json`}</pre>
      </details>
      <div class="row">
        <button type="button" class="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </section>
  );
}

function KeyTable({ keys, onRevoked }: { keys: ApiKey[]; onRevoked: (id: number) => void }) {
  const [error, setError] = useState<string>();
  const revoke = async (key: ApiKey) => {
    const ok = await confirmAction(`Revoke the key “${key.name}”?`, 'Every client using it is refused from now on. This cannot be undone.', 'Revoke key');
    if (!ok) return;
    try {
      await api.revokeKey(key.id);
      setError(undefined);
      onRevoked(key.id);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <>
      <Notice error={error} />
      <div class="table-scroll">
        <table class="stacked">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Access</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <th scope="row" data-label="Name">
                  {key.name}
                </th>
                <td data-label="Prefix" class="mono">
                  {key.prefix}…
                </td>
                <td data-label="Access">{key.scope === 'read' ? 'Read only' : 'Full access'}</td>
                <td data-label="Created">{formatTime(key.created)}</td>
                <td data-label="Expires">{key.expires === null ? 'Never' : formatTime(key.expires)}</td>
                <td data-label="Last used">{key.last_used === null ? 'Never' : formatTime(key.last_used)}</td>
                <td>
                  <button type="button" class="button small danger-outline" aria-label={`Revoke ${key.name}`} onClick={() => void revoke(key)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
