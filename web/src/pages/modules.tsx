import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { ModuleRow, ModuleSort, ModuleState } from '../api/types';
import { Badge, StatusBadge } from '../components/badge';
import { confirmAction } from '../components/confirm';
import { ModuleFilters, useDebounced } from '../components/module-filters';
import type { FilterValue } from '../components/module-filters';
import { ModuleRegistration } from '../components/module-registration';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { Pager } from '../components/pager';
import { TagList } from '../components/tag-list';
import { formatRelative, formatTime } from '../format';
import { useAction, useLoad } from '../hooks';
import { useLiveRefresh } from '../live-hooks';
import type { LiveFilter } from '../live-hooks';
import { LiveIndicator } from '../components/live-indicator';
import { Link, navigate } from '../router';

const PAGE = 50;
/** The polling period while the live stream is offline. */
const REFRESH_MS = 30_000;
/** Every module of the account. */
const ALL: LiveFilter = {};

async function downloadPacs(): Promise<string> {
  const blob = await api.pacs();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'pacs.csv';
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  return 'pacs.csv downloaded.';
}

/** The list's state lives in the URL (`/modules?q=cold&state=alerting&sort=name&page=3`): shareable, and Back works. */
function fromQuery(query: URLSearchParams): FilterValue & { sort: ModuleSort; page: number } {
  return {
    q: query.get('q') ?? '',
    state: (query.get('state') ?? '') as ModuleState | '',
    sort: (query.get('sort') ?? 'lastseen') as ModuleSort,
    page: Math.max(1, Number(query.get('page')) || 1),
  };
}

function toQuery(value: FilterValue & { page: number }): string {
  const params = new URLSearchParams();
  if (value.q) params.set('q', value.q);
  if (value.state) params.set('state', value.state);
  if (value.sort && value.sort !== 'lastseen') params.set('sort', value.sort);
  if (value.page > 1) params.set('page', String(value.page));
  const text = params.toString();
  return text ? `/modules?${text}` : '/modules';
}

export function ModulesPage({ query }: { query: URLSearchParams }) {
  const current = fromQuery(query);
  const [typed, setTyped] = useState(current.q);
  const q = useDebounced(typed);
  const go = (next: Partial<typeof current>) => navigate(toQuery({ ...current, page: 1, ...next }), { replace: true });
  useEffect(() => {
    if (q !== current.q) go({ q });
  }, [q]);
  const offset = (current.page - 1) * PAGE;
  const list = useLoad(
    () => api.moduleList({ q: current.q || undefined, state: current.state || undefined, sort: current.sort, limit: PAGE, offset }),
    [current.q, current.state, current.sort, offset],
  );
  // Messages and alerts change last seen, alerts, battery and signal: the page shown is read again.
  const live = useLiveRefresh(ALL, () => void list.reload(), { types: ['message', 'alert'], fallbackMs: REFRESH_MS, wait: 1000, maxWait: 10_000 });
  // One outcome at a time: each action clears the other's message.
  const exportPacs = useAction(async () => {
    unregister.clear();
    return downloadPacs();
  });
  const unregister = useAction(async (module: ModuleRow) => {
    exportPacs.clear();
    const ok = await confirmAction(
      `Unregister ${module.serial}?`,
      'It is detached from every app and leaves your account; its messages, raw uplinks and children are erased and its device tokens stop working. It can be registered again with its printed key.',
      'Unregister',
    );
    if (!ok) return;
    await api.unregister(module.id, module.serial);
    await list.reload();
    return `${module.serial} unregistered.`;
  });
  const page = list.data;
  const filtered = current.q !== '' || current.state !== '';

  return (
    <Page title="Modules" lead="The Sigfox modules registered to your account.">
      <Section
        title="Your modules"
        id="modules-list"
        actions={
          <>
            <LiveIndicator status={live} fallbackMs={REFRESH_MS} />
            <button type="button" class="button small" disabled={exportPacs.busy || !page?.total} onClick={() => void exportPacs.run()}>
              Export PACs (CSV)
            </button>
          </>
        }
      >
        <ModuleFilters
          value={{ q: typed, state: current.state, sort: current.sort }}
          onChange={(next) => {
            setTyped(next.q);
            if (next.state !== current.state || next.sort !== current.sort) go({ state: next.state, sort: next.sort ?? 'lastseen' });
          }}
        />
        <Notice error={list.error ?? exportPacs.error ?? unregister.error} done={exportPacs.done ?? unregister.done} />
        {page && page.total === 0 && <p class="empty">{filtered ? 'No module matches.' : 'No module registered yet: register some below.'}</p>}
        {page && page.total > 0 && (
          <>
            <Pager label="Pages of modules" offset={page.offset} limit={page.limit} total={page.total} onOffset={(next) => go({ page: next / PAGE + 1 })} />
            <div class="table-scroll">
              <table class="modules stackable" aria-busy={list.loading}>
                <caption class="visually-hidden">Modules, sorted by {current.sort}</caption>
                <thead>
                  <tr>
                    <th scope="col">Module</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">Alerts</th>
                    <th scope="col">Battery</th>
                    <th scope="col">Signal</th>
                    <th scope="col">Devices</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {page.modules.map((module) => (
                    <tr key={module.serial} data-serial={module.serial}>
                      <th scope="row">
                        <Link href={`/modules/${encodeURIComponent(module.serial)}`} class="mono">
                          {module.serial}
                        </Link>
                        <span class="muted protocol">{module.protocol}</span>
                        {module.name && <span class="device-name">{module.name}</span>}
                        <TagList tags={module.tags} onTag={(tag) => setTyped(tag)} />
                      </th>
                      <td data-label="Last seen">
                        {module.lastseen === null ? <span class="muted">never</span> : <time dateTime={new Date(module.lastseen).toISOString()} title={formatTime(module.lastseen)}>{formatRelative(module.lastseen)}</time>}
                      </td>
                      <td data-label="Alerts">{module.alerts > 0 ? <Badge tone="bad">{module.alerts} open</Badge> : <span class="muted">none</span>}</td>
                      <td data-label="Battery">
                        <StatusBadge field="battery" value={module.battery} />
                      </td>
                      <td data-label="Signal">
                        <StatusBadge field="level" value={module.level} />
                      </td>
                      <td data-label="Devices">{module.children === 0 ? <span class="muted">module only</span> : `+ ${module.children} child${module.children === 1 ? '' : 'ren'}`}</td>
                      <td>
                        <button type="button" class="button small danger-outline" aria-label={`Unregister ${module.serial}`} disabled={unregister.busy} onClick={() => void unregister.run(module)}>
                          Unregister
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager label="Pages of modules (bottom)" offset={page.offset} limit={page.limit} total={page.total} onOffset={(next) => go({ page: next / PAGE + 1 })} />
          </>
        )}
      </Section>
      <ModuleRegistration onRegistered={() => void list.reload()} />
    </Page>
  );
}
