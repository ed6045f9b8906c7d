import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { Link } from '../router';

/**
 * A page outside the signed-in shell (sign-in, sign-up, activation, password reset): one centred
 * card under the brand, with its own title.
 */
export function PublicPage({ title, children, form }: { title: string; children: ComponentChildren; form?: (event: SubmitEvent) => void }) {
  useEffect(() => {
    document.title = `${title} · snsr`;
  }, [title]);
  const body = (
    <>
      <div class="brand brand-large" aria-hidden="true">
        <img src="/favicon.svg" alt="" width="36" height="36" /> snsr
      </div>
      <h1 id="public-title">{title}</h1>
      {children}
    </>
  );
  return (
    <main id="main" class="sign-in">
      {form ? (
        <form
          class="card sign-in-card"
          aria-labelledby="public-title"
          onSubmit={(event) => {
            event.preventDefault();
            form(event);
          }}
        >
          {body}
        </form>
      ) : (
        <section class="card sign-in-card" aria-labelledby="public-title">
          {body}
        </section>
      )}
    </main>
  );
}

export function BackToSignIn({ label = 'Back to sign in' }: { label?: string }) {
  return (
    <p class="hint">
      <Link href="/">{label}</Link>
    </p>
  );
}
