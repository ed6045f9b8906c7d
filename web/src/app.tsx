import { useEffect, useState } from 'preact/hooks';
import { api } from './api/api';
import { ConfirmHost } from './components/confirm';
import { Page } from './components/page';
import { AccountPage } from './pages/account';
import { ActivatePage, activationUuid } from './pages/activate';
import { AppDetailPage } from './pages/app-detail';
import { AppsPage } from './pages/apps';
import { AuditPage } from './pages/audit';
import { DecoderPage } from './pages/decoder';
import { KeysPage } from './pages/keys';
import { ModuleDetailPage } from './pages/module-detail';
import { ModulesPage } from './pages/modules';
import { OverviewPage } from './pages/overview';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/password-reset';
import { SignIn } from './pages/sign-in';
import { SignUpPage } from './pages/sign-up';
import { Link, navigate, useLocation } from './router';
import type { Location } from './router';
import { session } from './session';
import { errorText } from './hooks';

const TABS = [
  ['/', 'Overview'],
  ['/account', 'My Account'],
  ['/apps', 'Apps'],
  ['/modules', 'Modules'],
  ['/decoder', 'Decoder'],
  ['/keys', 'API keys'],
  ['/audit', 'Audit log'],
] as const;

/** Pages shown whether or not someone is signed in: the links in emails lead to them. */
function publicPage({ path }: Location) {
  if (path === '/signup') return <SignUpPage />;
  if (path === '/forgot-password') return <ForgotPasswordPage />;
  if (path === '/reset-password') return <ResetPasswordPage />;
  if (path === '/dashboards/developer.html' || path.startsWith('/activate/')) return <ActivatePage uuid={activationUuid(path, location.hash)} />;
  return undefined;
}

function route({ path, query }: Location) {
  let match: RegExpExecArray | null;
  if (path === '/') return <OverviewPage />;
  if (path === '/account') return <AccountPage />;
  if (path === '/apps') return <AppsPage />;
  if ((match = /^\/apps\/(\d+)$/.exec(path))) return <AppDetailPage key={match[1]} id={Number(match[1])} />;
  if (path === '/modules') return <ModulesPage query={query} />;
  if ((match = /^\/modules\/([^/]+)$/.exec(path))) {
    const serial = decodeURIComponent(match[1]!);
    return <ModuleDetailPage key={serial} serial={serial} />;
  }
  if (path === '/decoder') return <DecoderPage query={query} />;
  if (path === '/keys') return <KeysPage />;
  if (path === '/audit') return <AuditPage />;
  return (
    <Page title="Page not found">
      <p>
        There is nothing at <code>{path}</code>. <Link href="/">Go to the overview</Link>
      </p>
    </Page>
  );
}

export function App() {
  const [state, setState] = useState(session.state());
  const [bootError, setBootError] = useState<string>();
  const location = useLocation();
  useEffect(() => session.subscribe(setState), []);
  // The cookie is HttpOnly: only the server can say whether it still holds a session.
  useEffect(() => {
    api
      .sessionStatus()
      .then((status) => {
        session.setOffer({ signup: status.signup, passwordReset: status.passwordReset });
        if (status.session) session.start(status.session.email);
        else session.end(status.ended ? 'Your session has ended (signed out elsewhere, idle for too long, or the password was changed): sign in again.' : undefined);
      })
      .catch((error: unknown) => setBootError(errorText(error)));
  }, []);
  useEffect(() => {
    if (state.status === 'signed-in' && location.path === '/signin') navigate('/', { replace: true });
  }, [state.status, location.path]);
  // On a phone the tabs scroll sideways: keep the current one in view (without moving the page).
  useEffect(() => {
    const current = document.querySelector<HTMLElement>('nav [aria-current="page"]');
    const nav = current?.closest('nav');
    if (current && nav && nav.scrollWidth > nav.clientWidth) nav.scrollLeft = current.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
  }, [location.path, state.status]);

  const open = publicPage(location);
  if (open) return open;
  if (state.status === 'loading') {
    return (
      <main id="main" class="sign-in">
        <p role={bootError ? 'alert' : 'status'}>{bootError ? `The server cannot be reached: ${bootError}` : 'Loading…'}</p>
      </main>
    );
  }
  if (state.status === 'signed-out') return <SignIn reason={state.reason} />;
  const signOut = async () => {
    try {
      await api.signOut();
    } finally {
      session.end();
    }
  };
  return (
    <>
      <a href="#main" class="skip-link">
        Skip to content
      </a>
      <header class="top">
        <div class="top-inner">
          <Link href="/" class="brand">
            <img src="/favicon.svg" alt="" width="24" height="24" /> snsr
          </Link>
          <nav aria-label="Dashboard">
            <ul>
              {TABS.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} aria-current={location.path === href || (href !== '/' && location.path.startsWith(`${href}/`)) ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="who-email" title={state.email}>
              {state.email}
            </span>
            <button type="button" class="button small" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {route(location)}
      </main>
      <ConfirmHost />
    </>
  );
}
