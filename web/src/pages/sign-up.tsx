import { useId, useState } from 'preact/hooks';
import { api } from '../api/api';
import { TextField } from '../components/field';
import { Notice } from '../components/notice';
import { PasswordPolicy, passwordRules } from '../components/password-policy';
import { BackToSignIn, PublicPage } from '../components/public-page';
import { useAction } from '../hooks';
import { session } from '../session';

/** Self-service sign-up (`SNSR_SIGNUP=open`): the account exists once the emailed link is opened. */
export function SignUpPage() {
  const [form, setForm] = useState({ email: '', firstname: '', lastname: '', password: '', repassword: '' });
  const [sentTo, setSentTo] = useState<string>();
  const policyId = useId();
  const field = (name: keyof typeof form) => (value: string) => setForm({ ...form, [name]: value });
  const signUp = useAction(async () => {
    const unmet = passwordRules(form.password, form.repassword).filter(([, met]) => !met);
    if (unmet.length > 0) throw new Error(`The password does not follow the rules yet: ${unmet.map(([rule]) => rule.toLowerCase()).join(', ')}.`);
    await api.signUp({ ...form, email: form.email.trim() });
    setSentTo(form.email.trim());
  });

  if (session.offer().signup !== 'open') {
    return (
      <PublicPage title="Create an account">
        <p>Accounts on this server are created by its operator (<code>snsr accounts create</code>): ask them for one.</p>
        <BackToSignIn />
      </PublicPage>
    );
  }
  if (sentTo) {
    return (
      <PublicPage title="Check your email">
        <p role="status" class="notice notice-done">
          We sent a link to <strong>{sentTo}</strong>. Open it to activate your account, then sign in with your email and password.
        </p>
        <p class="hint">Nothing after a few minutes? Look in the spam folder, or sign up again for a new link.</p>
        <BackToSignIn />
      </PublicPage>
    );
  }
  return (
    <PublicPage title="Create an account" form={() => void signUp.run()}>
      <TextField label="Email" type="email" name="email" autoComplete="email" required value={form.email} onValue={field('email')} />
      <TextField label="First name" name="firstname" autoComplete="given-name" maxLength={100} value={form.firstname} onValue={field('firstname')} />
      <TextField label="Last name" name="lastname" autoComplete="family-name" maxLength={100} value={form.lastname} onValue={field('lastname')} />
      <TextField label="Password" type="password" name="password" autoComplete="new-password" required value={form.password} onValue={field('password')} describedBy={policyId} />
      <TextField label="Confirm password" type="password" name="repassword" autoComplete="new-password" required value={form.repassword} onValue={field('repassword')} />
      <PasswordPolicy id={policyId} password={form.password} confirmation={form.repassword} />
      <Notice error={signUp.error} />
      <button type="submit" class="button primary wide" disabled={signUp.busy}>
        {signUp.busy ? 'Creating…' : 'Create account'}
      </button>
      <BackToSignIn label="I already have an account" />
    </PublicPage>
  );
}
