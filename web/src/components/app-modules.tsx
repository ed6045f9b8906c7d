import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { ModuleFilter } from '../api/types';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';
import { ModuleFilters, useDebounced } from './module-filters';
import type { FilterValue } from './module-filters';
import { Notice } from './notice';
import { Section } from './page';
import { Pager } from './pager';

const PAGE = 20;
const count = new Intl.NumberFormat();

function useModulePage(filter: ModuleFilter, offset: number, version: number) {
  const q = useDebounced(filter.q ?? '');
  return useLoad(() => api.moduleList({ ...filter, q: q || undefined, sort: 'serial', order: 'asc', limit: PAGE, offset }), [q, filter.state, filter.app, filter.notapp, offset, version]);
}

/**
 * The modules attached to an app, and a picker for the others that searches the account's modules
 * and can attach all that match at once: both are pages of the module list, never the whole fleet.
 */
export function AppModules({ appId }: { appId: number }) {
  const [version, setVersion] = useState(0);
  const [attachedFilter, setAttachedFilter] = useState<FilterValue>({ q: '', state: '' });
  const [attachedOffset, setAttachedOffset] = useState(0);
  const [pickFilter, setPickFilter] = useState<FilterValue>({ q: '', state: '' });
  const [pickOffset, setPickOffset] = useState(0);
  const attached = useModulePage({ app: appId, q: attachedFilter.q, state: attachedFilter.state || undefined }, attachedOffset, version);
  const available = useModulePage({ notapp: appId, q: pickFilter.q, state: pickFilter.state || undefined }, pickOffset, version);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const changed = () => {
    setSelected(new Set());
    setVersion((v) => v + 1);
  };
  const attach = useAction(async () => {
    detach.clear();
    const serials = [...selected];
    await api.attach(appId, serials);
    changed();
    return `Attached ${serials.length <= 5 ? serials.join(', ') : `${serials.length} modules`}.`;
  });
  const attachAll = useAction(async () => {
    detach.clear();
    const { attached: n } = await api.attachMatching(appId, { q: pickFilter.q.trim() || undefined, state: pickFilter.state || undefined });
    changed();
    return `Attached ${count.format(n)} module${n === 1 ? '' : 's'}.`;
  });
  const detach = useAction(async (serial: string) => {
    attach.clear();
    await api.detach(appId, [serial]);
    changed();
    return `Detached ${serial}.`;
  });
  const toggle = (serial: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(serial);
    else next.delete(serial);
    setSelected(next);
  };
  const attachedPage = attached.data;
  const pickPage = available.data;

  return (
    <Section title="Attached modules" id="app-modules">
      <Notice error={attached.error ?? available.error ?? attach.error ?? attachAll.error ?? detach.error} done={attach.done ?? attachAll.done ?? detach.done} />
      <ModuleFilters label="Search attached modules" sortable={false} value={attachedFilter} onChange={(value) => (setAttachedFilter(value), setAttachedOffset(0))} />
      {attachedPage && attachedPage.total === 0 && (
        <p class="empty">{attachedFilter.q || attachedFilter.state ? 'No attached module matches.' : 'No module is attached: nothing is delivered yet.'}</p>
      )}
      {attachedPage && attachedPage.total > 0 && (
        <>
          <ul class="chips" aria-label="Attached modules">
            {attachedPage.modules.map((module) => (
              <li key={module.serial} class="chip">
                <Link href={`/modules/${encodeURIComponent(module.serial)}`}>{module.serial}</Link>
                {module.name && <span class="chip-name">{module.name}</span>}
                <button type="button" class="button small" aria-label={`Detach ${module.serial}`} disabled={detach.busy} onClick={() => void detach.run(module.serial)}>
                  Detach
                </button>
              </li>
            ))}
          </ul>
          <Pager label="Pages of attached modules" offset={attachedPage.offset} limit={PAGE} total={attachedPage.total} onOffset={setAttachedOffset} />
        </>
      )}
      <form
        class="picker"
        onSubmit={(event) => {
          event.preventDefault();
          void attach.run();
        }}
      >
        <fieldset>
          <legend>Attach registered modules</legend>
          <ModuleFilters label="Search modules to attach" sortable={false} value={pickFilter} onChange={(value) => (setPickFilter(value), setPickOffset(0))} />
          {pickPage && pickPage.total === 0 && <p class="empty">{pickFilter.q || pickFilter.state ? 'No other module matches.' : 'Every registered module is attached.'}</p>}
          {pickPage && pickPage.total > 0 && (
            <>
              <div class="checks">
                {pickPage.modules.map((module) => (
                  <label key={module.serial} class="check">
                    <input type="checkbox" checked={selected.has(module.serial)} onChange={(event) => toggle(module.serial, event.currentTarget.checked)} />
                    <span class="mono">{module.serial}</span>
                    {module.name && <span class="muted">{module.name}</span>}
                  </label>
                ))}
              </div>
              <Pager label="Pages of modules to attach" offset={pickPage.offset} limit={PAGE} total={pickPage.total} onOffset={setPickOffset} />
            </>
          )}
          <div class="row">
            <button type="submit" class="button primary" disabled={attach.busy || selected.size === 0}>
              Attach selected{selected.size > 0 ? ` (${selected.size})` : ''}
            </button>
            {pickPage && pickPage.total > 0 && (
              <button type="button" class="button" disabled={attachAll.busy} onClick={() => void attachAll.run()}>
                Attach all {count.format(pickPage.total)} matching
              </button>
            )}
          </div>
        </fieldset>
      </form>
    </Section>
  );
}
