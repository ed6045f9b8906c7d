import { api } from '../api/api';
import { AppForm } from '../components/app-form';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { useLoad } from '../hooks';
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
            <table class="stackable">
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
                    <td data-label="Id">{app.id}</td>
                    <td class="mono break" data-label="Key">
                      {app.key}
                    </td>
                    <td class="break" data-label="Callback URL">
                      {app.callbackurl ?? <span class="muted">none</span>}
                    </td>
                    <td data-label="Created">{app.created}</td>
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

const EMPTY = { name: '', description: '', callbackurl: '' };

function CreateApp() {
  return (
    <Section title="Create an app" id="apps-create">
      <AppForm
        initial={EMPTY}
        submitLabel="Create app"
        callbackHint="Optional. snsr POSTs every decoded message of the attached modules here, signed with the app secret."
        onSubmit={async (values) => {
          const app = await api.saveApp(values);
          navigate(`/apps/${app.id}`);
        }}
      />
    </Section>
  );
}
