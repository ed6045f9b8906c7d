import { useEffect, useState } from 'preact/hooks';
import { ConfirmHost } from './components/confirm';
import { Page } from './components/page';
import { AccountPage } from './pages/account';
import { AppDetailPage } from './pages/app-detail';
import { AppsPage } from './pages/apps';
import { DecoderPage } from './pages/decoder';
import { ModuleDetailPage } from './pages/module-detail';
import { ModulesPage } from './pages/modules';
import { SignIn } from './pages/sign-in';
import { Link, navigate, useLocation } from './router';
import type { Location } from './router';
import { session } from './session';

const TABS = [
  ['/account', 'My Account'],
  ['/apps', 'Apps'],
  ['/modules', 'Modules'],
  ['/decoder', 'Decoder'],
] as const;

function route({ path, query }: Location) {
  let match: RegExpExecArray | null;
  if (path === '/account') return <AccountPage />;
  if (path === '/apps') return <AppsPage />;
  if ((match = /^\/apps\/(\d+)$/.exec(path))) return <AppDetailPage key={match[1]} id={Number(match[1])} />;
  if (path === '/modules') return <ModulesPage />;
  if ((match = /^\/modules\/([^/]+)$/.exec(path))) {
    const serial = decodeURIComponent(match[1]!);
    return <ModuleDetailPage key={serial} serial={serial} />;
  }
  if (path === '/decoder') return <DecoderPage query={query} />;
  return (
    <Page title="Page not found">
      <p>
        There is nothing at <code>{path}</code>. <Link href="/account">Go to My Account</Link>
      </p>
    </Page>
  );
}

export function App() {
  const [current, setCurrent] = useState(session.get());
  const [reason, setReason] = useState<string>();
  const location = useLocation();
  useEffect(
    () =>
      session.subscribe((next, why) => {
        setCurrent(next);
        setReason(why);
      }),
    [],
  );
  useEffect(() => {
    if (current && (location.path === '/' || location.path === '/signin')) navigate('/account', { replace: true });
  }, [current, location.path]);

  if (!current) return <SignIn reason={reason} />;
  return (
    <>
      <a href="#main" class="skip-link">
        Skip to content
      </a>
      <header class="top">
        <div class="top-inner">
          <Link href="/account" class="brand">
            <img src="/favicon.svg" alt="" width="24" height="24" /> snsr
          </Link>
          <nav aria-label="Dashboard">
            <ul>
              {TABS.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} aria-current={location.path === href || location.path.startsWith(`${href}/`) ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span class="who-email" title={current.email}>
              {current.email}
            </span>
            <button type="button" class="button small" onClick={() => session.end()}>
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
