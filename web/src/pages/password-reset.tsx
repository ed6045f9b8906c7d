import { useEffect, useId, useState } from 'preact/hooks';
import { api } from '../api/api';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { PasswordPolicy, passwordRules } from '../components/password-policy';
import { BackToSignIn, PublicPage } from '../components/public-page';
import { useAction } from '../hooks';
import { Link } from '../router';
import { session } from '../session';

/** Asks for a reset link by email; the answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const ask = useAction(async () => {
    await api.forgotPassword(email.trim());
    setSentTo(email.trim());
  });
  if (!session.offer().passwordReset) {
    return (
      <PublicPage title="Forgot your password?">
        <p>This server sends no email: ask its operator to set a new password for you.</p>
        <BackToSignIn />
      </PublicPage>
    );
  }
  if (sentTo) {
    return (
      <PublicPage title="Check your email">
        <p role="status" class="notice notice-done">
          If <strong>{sentTo}</strong> has an account, we sent it a link to choose a new password. The link works once, for a short time.
        </p>
        <BackToSignIn />
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Forgot your password?" form={() => void ask.run()}>
      <p>Enter your account's email: we send it a link to choose a new password.</p>
      <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
      <Notice error={ask.error} />
      <button type="submit" class="button primary wide" disabled={ask.busy}>
        Send the link
      </button>
      <BackToSignIn />
    </PublicPage>
  );
}

/** Where the reset email leads (`/reset-password#token=…`): a new password, once. */
export function ResetPasswordPage() {
  // The token is read once and taken out of the address bar (history, screenshots, shoulders).
  const [token] = useState(() => new URLSearchParams(location.hash.replace(/^#\??/, '')).get('token') ?? '');
  useEffect(() => {
    if (location.hash) history.replaceState(null, '', location.pathname);
  }, []);
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [done, setDone] = useState(false);
  const policyId = useId();
  const reset = useAction(async () => {
    const unmet = passwordRules(password, confirmation).filter(([, met]) => !met);
    if (unmet.length > 0) throw new Error(`The new password does not follow the rules yet: ${unmet.map(([rule]) => rule.toLowerCase()).join(', ')}.`);
    await api.resetPassword(token, password, confirmation);
    setDone(true);
  });
  if (!token) {
    return (
      <PublicPage title="Choose a new password">
        <p role="alert" class="notice notice-error">
          This page needs the link from your password reset email. <Link href="/forgot-password">Ask for a new link</Link>.
        </p>
      </PublicPage>
    );
  }
  if (done) {
    return (
      <PublicPage title="Password changed">
        <p role="status" class="notice notice-done">
          Your password was changed and every session was signed out. Sign in with the new password.
        </p>
        <p>
          <Link href="/" class="button primary">
            Sign in
          </Link>
        </p>
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Choose a new password" form={() => void reset.run()}>
      <TextField label="New password" type="password" autoComplete="new-password" required value={password} onValue={setPassword} describedBy={policyId} />
      <TextField label="Confirm new password" type="password" autoComplete="new-password" required value={confirmation} onValue={setConfirmation} />
      <PasswordPolicy id={policyId} password={password} confirmation={confirmation} />
      <Notice error={reset.error} />
      <button type="submit" class="button primary wide" disabled={reset.busy}>
        Set the new password
      </button>
      <p class="hint">
        Link expired or already used? <Link href="/forgot-password">Ask for a new one</Link>.
      </p>
    </PublicPage>
  );
}
