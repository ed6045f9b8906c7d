import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

// The page the browser loaded keeps the browser's own focus start (the skip link comes first).
let firstPage = true;

/**
 * A page with its heading. After navigating, the heading takes focus, so keyboard and screen
 * reader users start at the new content as they would after a full page load.
 */
export function Page({ title, lead, actions, children }: { title: string; lead?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · snsr`;
    if (!firstPage) heading.current?.focus({ preventScroll: true });
    firstPage = false;
  }, [title]);
  return (
    <>
      <header class="page-header">
        <div>
          <h1 ref={heading} tabIndex={-1}>
            {title}
          </h1>
          {lead && <p class="lead">{lead}</p>}
        </div>
        {actions && <div class="row">{actions}</div>}
      </header>
      {children}
    </>
  );
}

export function Section({ title, id, actions, children }: { title: string; id: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={id}>
      <div class="card-header">
        <h2 id={id}>{title}</h2>
        {actions && <div class="row">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
