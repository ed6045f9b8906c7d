import { useState } from 'preact/hooks';
import { api } from '../api/api';
import { ApiError } from '../api/client';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { PublicPage } from '../components/public-page';
import { useAction } from '../hooks';
import { Link } from '../router';
import { session } from '../session';

/**
 * Email and password open a session: the server answers with an HttpOnly cookie the page never
 * sees; the password is not kept anywhere.
 */
export function SignIn({ reason }: { reason?: string | undefined }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const offer = session.offer();
  const signIn = useAction(async () => {
    try {
      const signed = await api.signIn(email.trim(), password);
      session.start(signed.email);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        throw new Error(
          offer.signup === 'open'
            ? 'There is no developer account with this email: create one with “Create an account”.'
            : 'There is no developer account with this email. The operator creates accounts with `snsr accounts create`.',
        );
      }
      if (error instanceof ApiError && error.status === 401) {
        throw new Error(/not activated/.test(error.message) ? 'This account is not activated yet: follow the link in the email we sent you.' : 'The password is not right for this account.');
      }
      throw error;
    }
  });

  return (
    <PublicPage title="Sign in to the developer dashboard" form={() => void signIn.run()}>
      {reason && !signIn.error && <p class="notice notice-info">{reason}</p>}
      <TextField label="Email" type="email" name="email" autoComplete="username" required value={email} onValue={setEmail} />
      <TextField label="Password" type="password" name="password" autoComplete="current-password" required value={password} onValue={setPassword} />
      <Notice error={signIn.error} />
      <button type="submit" class="button primary wide" disabled={signIn.busy}>
        {signIn.busy ? 'Signing in…' : 'Sign in'}
      </button>
      {(offer.passwordReset || offer.signup === 'open') && (
        <p class="row spread">
          {offer.passwordReset && <Link href="/forgot-password">Forgot your password?</Link>}
          {offer.signup === 'open' && <Link href="/signup">Create an account</Link>}
        </p>
      )}
      <p class="hint">You stay signed in until you sign out, close the browser or leave it idle. The API reference is at <a href="/docs">/docs</a>.</p>
    </PublicPage>
  );
}
