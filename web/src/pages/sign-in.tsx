import { useState } from 'preact/hooks';
import { api } from '../api/api';
import { ApiError } from '../api/client';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { useAction } from '../hooks';
import { session } from '../session';

/** Email and password are checked with /security/authentication; the session keeps the account token. */
export function SignIn({ reason }: { reason?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useAction(async () => {
    try {
      await api.authenticate(email.trim(), password);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new Error('There is no developer account with this email. The operator creates accounts with `snsr accounts create`.');
      if (error instanceof ApiError && error.status === 401) throw new Error('The password is not right for this account.');
      throw error;
    }
    const account = await api.accountWith(email.trim(), password);
    session.start({ email: account.email, token: account.token });
  });

  return (
    <main id="main" class="sign-in">
      <form
        class="card sign-in-card"
        aria-labelledby="sign-in-title"
        onSubmit={(event) => {
          event.preventDefault();
          void signIn.run();
        }}
      >
        <div class="brand brand-large" aria-hidden="true">
          <img src="/favicon.svg" alt="" width="36" height="36" /> snsr
        </div>
        <h1 id="sign-in-title">Sign in to the developer dashboard</h1>
        {reason && !signIn.error && <p class="notice notice-info">{reason}</p>}
        <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
        <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
        <Notice error={signIn.error} />
        <button type="submit" class="button primary wide" disabled={signIn.busy}>
          {signIn.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">You stay signed in until you close the browser. The API reference is at <a href="/docs">/docs</a>.</p>
      </form>
    </main>
  );
}
