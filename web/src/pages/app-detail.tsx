import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { App } from '../api/types';
import { AppModules } from '../components/app-modules';
import { confirmAction } from '../components/confirm';
import { CopyButton } from '../components/copy-button';
import { DeliveryLog } from '../components/delivery-log';
import { WebhookHealthSection } from '../components/webhook-health';
import { AppForm } from '../components/app-form';
import { Notice } from '../components/notice';
import { RetentionControl } from '../components/retention-control';
import { Page, Section } from '../components/page';
import { useAction, useLoad } from '../hooks';
import { Link, navigate } from '../router';

export function AppDetailPage({ id }: { id: number }) {
  // The API lists apps; there is no single-app read, and an account has few apps.
  const apps = useLoad(() => api.apps(), [id]);
  // Bumped when failed deliveries are queued again, so the health and the log both read anew.
  const [revision, setRevision] = useState(0);
  const retried = () => setRevision((value) => value + 1);
  const app = apps.data?.find((candidate) => candidate.id === id);
  const remove = useAction(async () => {
    if (!app) return;
    const ok = await confirmAction(
      `Delete the app “${app.name}”?`,
      'Its modules are detached and nothing more is delivered to its callback URL. This cannot be undone.',
      'Delete app',
    );
    if (!ok) return;
    await api.deleteApp(app.id);
    navigate('/apps');
  });

  if (apps.data && !app) {
    return (
      <Page title="App not found">
        <p>
          There is no app {id} in your account. <Link href="/apps">Back to your apps</Link>
        </p>
      </Page>
    );
  }
  return (
    <Page title={app ? app.name || `App ${app.id}` : 'App'} lead={<Link href="/apps">← All apps</Link>}>
      <Notice error={apps.error} />
      {app && (
        <>
          <Credentials app={app} />
          <Settings app={app} onSaved={() => void apps.reload()} />
          <AppModules appId={app.id} />
          <Section title="Retention" id="app-retention">
            <RetentionControl app={{ id: app.id, name: app.name || `App ${app.id}` }} />
          </Section>
          <WebhookHealthSection appId={app.id} hasCallback={app.callbackurl !== undefined} revision={revision} onRetried={retried} />
          <DeliveryLog appId={app.id} hasCallback={app.callbackurl !== undefined} revision={revision} onRetried={retried} />
          <Section title="Delete this app" id="app-delete">
            <p>Deleting the app detaches its modules and stops its deliveries.</p>
            <Notice error={remove.error} />
            <button type="button" class="button danger-outline" disabled={remove.busy} onClick={() => void remove.run()}>
              Delete app
            </button>
          </Section>
        </>
      )}
    </Page>
  );
}

function Credentials({ app }: { app: App }) {
  const [revealed, setRevealed] = useState(false);
  return (
    <Section title="Credentials" id="app-credentials">
      <dl class="details">
        <dt>App id</dt>
        <dd class="mono">{app.id}</dd>
        <dt>Key</dt>
        <dd class="row">
          <code>{app.key}</code> <CopyButton text={app.key} label="Copy app key" />
        </dd>
        <dt>Secret</dt>
        <dd class="row">
          <code aria-live="polite">{revealed ? app.secret : '•'.repeat(16)}</code>
          <button type="button" class="button small" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>
            {revealed ? 'Hide secret' : 'Reveal secret'}
          </button>
          {revealed && <CopyButton text={app.secret} label="Copy app secret" />}
        </dd>
        <dt>Created</dt>
        <dd>{app.created}</dd>
      </dl>
      <p class="hint">
        Callbacks carry <code>X-Snsr-Signature: t=…,v1=…</code>, the HMAC-SHA256 of <code>t.body</code> keyed by this secret.
      </p>
    </Section>
  );
}

function Settings({ app, onSaved }: { app: App; onSaved: () => void }) {
  return (
    <Section title="Settings" id="app-settings">
      <AppForm
        initial={{ name: app.name, description: app.description, callbackurl: app.callbackurl ?? '' }}
        submitLabel="Save changes"
        callbackHint="Leave empty to stop callbacks. Decoded messages of the attached modules are POSTed here."
        onSubmit={async (values) => {
          await api.saveApp({ id: app.id, ...values });
          onSaved();
          return 'App saved.';
        }}
      />
    </Section>
  );
}
