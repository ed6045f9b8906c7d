import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { AuditEntry } from '../api/types';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { formatTime } from '../format';
import { useAction, useLoad } from '../hooks';

const PAGE = 50;

const ACTIONS: Record<string, string> = {
  signin: 'Signed in',
  'signin.failed': 'Sign-in failed',
  signout: 'Signed out',
  'password.change': 'Changed the password',
  'password.change.failed': 'Password change refused (wrong current password)',
  'password.reset.request': 'Asked for a password reset link',
  'password.reset': 'Reset the password',
  'token.regenerate': 'Regenerated the account token',
  'key.create': 'Created an API key',
  'key.revoke': 'Revoked an API key',
  'account.activate': 'Activated the account',
  'git.alias': 'Set the git alias',
  'module.register': 'Registered modules',
  'module.unregister': 'Unregistered a module',
  'module.rekey': "Changed a module's key",
  'module.label': 'Named, tagged or annotated a device',
  'module.tag': 'Tagged modules',
  'app.create': 'Created an app',
  'app.update': 'Updated an app',
  'app.delete': 'Deleted an app',
  'app.attach': 'Attached modules to an app',
  'app.detach': 'Detached modules from an app',
  'app.test': 'Sent a test callback',
  'delivery.retry': 'Retried a delivery',
  'delivery.retry_many': 'Retried failed deliveries',
  'alert.email': 'Turned alert emails on or off',
};

export function credentialText(entry: AuditEntry): string {
  switch (entry.credential) {
    case 'session':
      return 'dashboard session';
    case 'password':
      return 'password';
    case 'token':
      return 'account token';
    case 'key':
      return `API key “${entry.key ?? '?'}”`;
    case 'link':
      return 'emailed link';
    case 'operator':
      return 'operator (CLI)';
    default:
      return '—';
  }
}

/** Detail fields that hold epoch milliseconds. */
const TIMES = new Set(['expires', 'created']);

/** `name: value` pairs, arrays joined: enough to tell entries apart at a glance. */
function detailText(detail: Record<string, unknown> | undefined): string {
  if (!detail) return '';
  return Object.entries(detail)
    .filter(([, value]) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0))
    .map(([name, value]) => `${name.replaceAll('_', ' ')}: ${TIMES.has(name) && typeof value === 'number' ? formatTime(value) : Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('; ');
}

/** The account's audit log: what was done, when, with which credential and from where. */
export function AuditPage() {
  const [more, setMore] = useState(false);
  const log = useLoad(async () => {
    const page = await api.audit({ limit: PAGE });
    setMore(page.length === PAGE);
    return page;
  }, []);
  const entries = log.data ?? [];
  const older = useAction(async () => {
    const last = entries.at(-1);
    if (!last) return;
    const page = await api.audit({ limit: PAGE, before: last.id });
    setMore(page.length === PAGE);
    log.set([...entries, ...page]);
  });
  return (
    <Page title="Audit log" lead="Every sign-in and every change to your account, apps and modules, newest first.">
      <Section title="Entries" id="audit-entries" actions={<button type="button" class="button small" onClick={() => void log.reload()}>Refresh</button>}>
        <Notice error={log.error ?? older.error} />
        {log.data && entries.length === 0 && <p class="empty">Nothing recorded yet.</p>}
        {entries.length > 0 && (
          <div class="table-scroll">
            <table class="stacked">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Credential</th>
                  <th scope="col">From</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.id} class={entry.action.endsWith('.failed') ? 'row-warn' : undefined}>
                    <td data-label="When">{formatTime(entry.at)}</td>
                    <th scope="row" data-label="What">
                      {ACTIONS[entry.action] ?? entry.action}
                    </th>
                    <td data-label="Credential">{credentialText(entry)}</td>
                    <td data-label="From" class="mono">
                      {entry.address ?? '—'}
                    </td>
                    <td data-label="Details" class="break">
                      {detailText(entry.detail) || null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {more && (
          <div class="row">
            <button type="button" class="button" disabled={older.busy} onClick={() => void older.run()}>
              Older entries
            </button>
          </div>
        )}
      </Section>
    </Page>
  );
}
