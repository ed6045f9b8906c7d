import { useState } from 'preact/hooks';
import { api } from '../api/api';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { useAction, useLoad } from '../hooks';
import { Link, navigate } from '../router';

export function AppsPage() {
  const apps = useLoad(() => api.apps(), []);
  return (
    <Page title="Apps" lead="An app receives the decoded messages of the modules attached to it at its callback URL.">
      <Section title="Your apps" id="apps-list">
        <Notice error={apps.error} />
        {apps.data && apps.data.length === 0 && <p class="empty">No app yet: create one below.</p>}
        {apps.data && apps.data.length > 0 && (
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Id</th>
                  <th scope="col">Key</th>
                  <th scope="col">Callback URL</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {apps.data.map((app) => (
                  <tr key={app.id}>
                    <th scope="row">
                      <Link href={`/apps/${app.id}`}>{app.name || `App ${app.id}`}</Link>
                      {app.description && <div class="hint">{app.description}</div>}
                    </th>
                    <td>{app.id}</td>
                    <td class="mono">{app.key}</td>
                    <td class="break">{app.callbackurl ?? <span class="muted">none</span>}</td>
                    <td>{app.created}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Section>
      <CreateApp />
    </Page>
  );
}

function CreateApp() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [callbackurl, setCallbackurl] = useState('');
  const create = useAction(async () => {
    const app = await api.saveApp({ name: name.trim(), description: description.trim(), callbackurl: callbackurl.trim() });
    navigate(`/apps/${app.id}`);
  });
  return (
    <Section title="Create an app" id="apps-create">
      <form
        class="stack narrow"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <TextField label="Name" value={name} onValue={setName} required maxLength={200} />
        <TextField label="Description" value={description} onValue={setDescription} maxLength={2000} />
        <TextField
          label="Callback URL"
          type="url"
          value={callbackurl}
          onValue={setCallbackurl}
          placeholder="https://example.com/snsr"
          hint="Optional. snsr POSTs every decoded message of the attached modules here, signed with the app secret."
        />
        <Notice error={create.error} />
        <div class="row">
          <button type="submit" class="button primary" disabled={create.busy}>
            Create app
          </button>
        </div>
      </form>
    </Section>
  );
}
