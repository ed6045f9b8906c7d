import { useId, useState } from 'preact/hooks';
import { api } from '../api/api';
import { ApiError } from '../api/client';
import { AlertEmailSection } from '../components/alert-email-section';
import { confirmAction } from '../components/confirm';
import { CopyButton } from '../components/copy-button';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { PasswordPolicy, passwordRules } from '../components/password-policy';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';
import { session } from '../session';

/** My Account: the account token (what the spec sends developers here for), alert emails, git alias, password, deletion. */
export function AccountPage() {
  const account = useLoad(() => api.account(), []);
  const data = account.data;
  return (
    <Page title="My Account" lead={data ? `Signed in as ${data.email}` : undefined}>
      <Notice error={account.error} />
      {data && (
        <>
          <Section title="Account" id="account-details">
            <dl class="details">
              <dt>Email</dt>
              <dd>{data.email}</dd>
              {(data.firstname || data.lastname) && (
                <>
                  <dt>Name</dt>
                  <dd>{[data.firstname, data.lastname].filter(Boolean).join(' ')}</dd>
                </>
              )}
              <dt>Created</dt>
              <dd>{new Date(data.created).toLocaleString()}</dd>
            </dl>
          </Section>
          <TokenSection token={data.token} onToken={(token) => account.set({ ...data, token })} />
          <AlertEmailSection email={data.email} />
          <GitSection email={data.email} alias={data.gitAlias ?? ''} onSaved={(gitAlias) => account.set({ ...data, gitAlias })} />
          <PasswordSection email={data.email} />
          <DeleteSection email={data.email} />
        </>
      )}
    </Page>
  );
}

function TokenSection({ token, onToken }: { token: string; onToken: (token: string) => void }) {
  const [shown, setShown] = useState(false);
  const id = useId();
  const regenerate = useAction(async () => {
    const ok = await confirmAction(
      'Regenerate the account token?',
      'The current token stops working at once: every client that uses it must be given the new one. Your password is not affected.',
      'Regenerate token',
    );
    if (!ok) return;
    const { token: next } = await api.regenerateToken();
    onToken(next);
    setShown(true);
    return 'A new token was generated; the old one no longer works.';
  });
  const origin = location.origin;
  return (
    <Section title="Account token" id="token-title">
      <p>
        API clients authenticate with <code>Authorization: Basic &lt;token&gt;</code> instead of your email and password. For scripts
        and services, prefer <Link href="/keys">API keys</Link>: read-only if they only read, and revocable one by one.
      </p>
      <div class="field">
        <label for={id}>Account token</label>
        <div class="input-row">
          {/* Masked as text, not type=password: password managers must not offer to save it. */}
          <input id={id} class="mono" type="text" readOnly value={shown ? token : `${'•'.repeat(24)}${token.slice(-4)}`} autoComplete="off" spellcheck={false} />
          <button type="button" class="button small" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? 'Hide' : 'Show'}
          </button>
          <CopyButton text={token} label="Copy account token" />
        </div>
      </div>
      <details>
        <summary>Example request</summary>
        <pre class="code">{`curl -H "Authorization: Basic ${shown ? token : '<token>'}" \\\n  ${origin}/iot/developers/modules.json`}</pre>
      </details>
      <Notice error={regenerate.error} done={regenerate.done} />
      <div class="row">
        <button type="button" class="button danger-outline" disabled={regenerate.busy} onClick={() => void regenerate.run()}>
          Regenerate token
        </button>
      </div>
    </Section>
  );
}

function GitSection({ email, alias, onSaved }: { email: string; alias: string; onSaved: (alias: string) => void }) {
  const [value, setValue] = useState(alias);
  const save = useAction(async () => {
    await api.registerGit(email, value.trim());
    onSaved(value.trim());
    return 'Git alias saved.';
  });
  return (
    <Section title="Git alias" id="git-title">
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save.run();
        }}
      >
        <TextField
          label="Git alias"
          value={value}
          onValue={setValue}
          required
          pattern="[A-Za-z0-9._\-]{1,64}"
          hint="The name used to access source repositories: 1 to 64 letters, digits, dots, dashes or underscores."
        />
        <button type="submit" class="button primary" disabled={save.busy}>
          Save alias
        </button>
      </form>
      <Notice error={save.error} done={save.done} />
    </Section>
  );
}

function PasswordSection({ email }: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [wrongCurrent, setWrongCurrent] = useState<string>();
  const policyId = useId();
  const change = useAction(async () => {
    setWrongCurrent(undefined);
    const unmet = passwordRules(next, confirmation).filter(([, met]) => !met);
    if (unmet.length > 0) throw new Error(`The new password does not follow the rules yet: ${unmet.map(([rule]) => rule.toLowerCase()).join(', ')}.`);
    try {
      await api.updatePassword(email, current, next, confirmation);
    } catch (error) {
      // The spec answers a wrong current password with 401: it is said at the field, and the
      // session goes on. Any other 401 means the session itself ended.
      if (error instanceof ApiError && error.status === 401 && /currentpwd/.test(error.message)) {
        setWrongCurrent('This is not your current password.');
        throw new Error('The password was not changed: the current password is not right.');
      }
      if (error instanceof ApiError && error.status === 401) session.expire(error.message);
      throw error;
    }
    setCurrent('');
    setNext('');
    setConfirmation('');
    return 'Password changed. Your other sessions were signed out; your account token and API keys are unchanged.';
  });
  return (
    <Section title="Change password" id="password-title">
      <form
        class="stack narrow"
        onSubmit={(event) => {
          event.preventDefault();
          void change.run();
        }}
      >
        {/* Password managers pair the new password with this account. */}
        <input type="email" class="offscreen" autoComplete="username" value={email} readOnly tabIndex={-1} aria-hidden="true" />
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={(value) => (setCurrent(value), setWrongCurrent(undefined))}
          error={wrongCurrent}
        />
        <TextField label="New password" type="password" autoComplete="new-password" required value={next} onValue={setNext} describedBy={policyId} />
        <TextField label="Confirm new password" type="password" autoComplete="new-password" required value={confirmation} onValue={setConfirmation} />
        <PasswordPolicy id={policyId} password={next} confirmation={confirmation} />
        <Notice error={change.error} done={change.done} />
        <div class="row">
          <button type="submit" class="button primary" disabled={change.busy}>
            Change password
          </button>
        </div>
      </form>
    </Section>
  );
}

/** Deletes the account for good, after its owner types the email: the API unregisters its modules first. */
function DeleteSection({ email }: { email: string }) {
  const [typed, setTyped] = useState('');
  const remove = useAction(async () => {
    const ok = await confirmAction(
      'Delete your account?',
      'Your modules are unregistered, and your apps, API keys, account token and audit log are deleted. This cannot be undone.',
      'Delete my account',
    );
    if (!ok) return;
    await api.deleteAccount(email);
    session.end(`The account ${email} was deleted.`);
  });
  return (
    <Section title="Delete account" id="delete-title">
      <form
        class="stack narrow"
        onSubmit={(event) => {
          event.preventDefault();
          void remove.run();
        }}
      >
        <p>Deleting the account unregisters all its modules (anyone may register them again with their key) and deletes its apps, API keys and audit log.</p>
        <TextField label="Type your email to confirm" type="email" autoComplete="off" value={typed} onValue={setTyped} />
        <Notice error={remove.error} />
        <div class="row">
          <button type="submit" class="button danger" disabled={remove.busy || typed.trim().toLowerCase() !== email.toLowerCase()}>
            Delete account
          </button>
        </div>
      </form>
    </Section>
  );
}
