import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import { errorText } from '../hooks';
import { BackToSignIn, PublicPage } from '../components/public-page';
import { Link } from '../router';

/**
 * Where the activation email leads: the portal's `/dashboards/developer.html#?uuid=<uuid>`, or
 * `/activate/<uuid>`. Opening the page activates the account.
 */
export function ActivatePage({ uuid }: { uuid: string | undefined }) {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  useEffect(() => {
    if (!uuid) return setOutcome({ ok: false, text: 'This page needs the link from your activation email.' });
    let current = true;
    api
      .activate(uuid)
      .then(() => current && setOutcome({ ok: true, text: 'Your account is active. Sign in with your email and the password you chose.' }))
      .catch((error: unknown) => current && setOutcome({ ok: false, text: `Your account could not be activated: ${errorText(error)}.` }));
    return () => void (current = false);
  }, [uuid]);
  return (
    <PublicPage title="Activate your account">
      {!outcome && <p role="status">Activating…</p>}
      {outcome && (
        <p role={outcome.ok ? 'status' : 'alert'} class={`notice ${outcome.ok ? 'notice-done' : 'notice-error'}`}>
          {outcome.text}
        </p>
      )}
      {outcome?.ok ? (
        <p>
          <Link href="/" class="button primary">
            Sign in
          </Link>
        </p>
      ) : (
        outcome && <BackToSignIn />
      )}
    </PublicPage>
  );
}

/** The uuid of `#?uuid=…` (the portal's link form) or of the path `/activate/<uuid>`. */
export function activationUuid(path: string, hash: string): string | undefined {
  const fromPath = /^\/activate\/([^/]+)$/.exec(path)?.[1];
  if (fromPath) return decodeURIComponent(fromPath);
  return new URLSearchParams(hash.replace(/^#\??/, '')).get('uuid') ?? undefined;
}
