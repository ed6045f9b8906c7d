import { useState } from 'preact/hooks';
import { api } from '../api/api';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';
import { Notice } from './notice';
import { Section } from './page';

/** The modules attached to an app, and attaching the account's other modules. */
export function AppModules({ appId }: { appId: number }) {
  const lists = useLoad(async () => {
    const [attached, registered] = await Promise.all([api.appModules(appId), api.modules()]);
    return { attached, registered };
  }, [appId]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const attach = useAction(async () => {
    detach.clear();
    const serials = [...selected];
    await api.attach(appId, serials);
    setSelected(new Set());
    await lists.reload();
    return `Attached ${serials.join(', ')}.`;
  });
  const detach = useAction(async (serial: string) => {
    attach.clear();
    await api.detach(appId, [serial]);
    await lists.reload();
    return `Detached ${serial}.`;
  });

  const attached = lists.data?.attached ?? [];
  const attachedSerials = new Set(attached.map((m) => m.serial));
  const available = (lists.data?.registered ?? []).filter((m) => !attachedSerials.has(m.serial));
  const toggle = (serial: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(serial);
    else next.delete(serial);
    setSelected(next);
  };

  return (
    <Section title="Attached modules" id="app-modules">
      <Notice error={lists.error ?? attach.error ?? detach.error} done={attach.done ?? detach.done} />
      {lists.data && attached.length === 0 && <p class="empty">No module is attached: nothing is delivered yet.</p>}
      {attached.length > 0 && (
        <ul class="chips" aria-label="Attached modules">
          {attached.map((module) => (
            <li key={module.serial} class="chip">
              <Link href={`/modules/${encodeURIComponent(module.serial)}`}>{module.serial}</Link>
              <button type="button" class="button small" aria-label={`Detach ${module.serial}`} disabled={detach.busy} onClick={() => void detach.run(module.serial)}>
                Detach
              </button>
            </li>
          ))}
        </ul>
      )}
      {lists.data && available.length > 0 && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void attach.run();
          }}
        >
          <fieldset>
            <legend>Attach registered modules</legend>
            <div class="checks">
              {available.map((module) => (
                <label key={module.serial} class="check">
                  <input type="checkbox" checked={selected.has(module.serial)} onChange={(event) => toggle(module.serial, event.currentTarget.checked)} />
                  <span class="mono">{module.serial}</span>
                </label>
              ))}
            </div>
            <button type="submit" class="button primary" disabled={attach.busy || selected.size === 0}>
              Attach selected
            </button>
          </fieldset>
        </form>
      )}
      {lists.data && lists.data.registered.length === 0 && (
        <p class="hint">
          Register modules on the <Link href="/modules">Modules</Link> page to attach them here.
        </p>
      )}
    </Section>
  );
}
