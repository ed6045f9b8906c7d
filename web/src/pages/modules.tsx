import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { ModuleDevice, ModuleItem } from '../api/types';
import { DeviceBadges } from '../components/badge';
import { confirmAction } from '../components/confirm';
import { ModuleRegistration } from '../components/module-registration';
import { Notice } from '../components/notice';
import { Page, Section } from '../components/page';
import { errorText, useAction, useLoad } from '../hooks';
import { Link } from '../router';

/** Reads each module's device, four at a time: the list operation only has id and serial. */
function useDevices(modules: ModuleItem[] | undefined) {
  const [devices, setDevices] = useState<Record<string, ModuleDevice | string>>({});
  useEffect(() => {
    if (!modules) return;
    let cancelled = false;
    const queue = [...modules];
    const worker = async () => {
      for (let next = queue.shift(); next && !cancelled; next = queue.shift()) {
        const serial = next.serial;
        const value = await api.device(serial).catch((error: unknown) => errorText(error));
        if (!cancelled) setDevices((current) => ({ ...current, [serial]: value }));
      }
    };
    void Promise.all([worker(), worker(), worker(), worker()]);
    return () => void (cancelled = true);
  }, [modules]);
  return devices;
}

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

export function ModulesPage() {
  const modules = useLoad(() => api.modules(), []);
  const devices = useDevices(modules.data);
  // One outcome at a time: each action clears the other's message.
  const exportPacs = useAction(async () => {
    unregister.clear();
    return downloadPacs();
  });
  const unregister = useAction(async (module: ModuleItem) => {
    exportPacs.clear();
    const ok = await confirmAction(
      `Unregister ${module.serial}?`,
      'It is detached from every app and leaves your account; its messages, raw uplinks and children are erased and its device tokens stop working. It can be registered again with its printed key.',
      'Unregister',
    );
    if (!ok) return;
    await api.unregister(module.id, module.serial);
    await modules.reload();
    return `${module.serial} unregistered.`;
  });

  return (
    <Page title="Modules" lead="The Sigfox modules registered to your account.">
      <ModuleRegistration onRegistered={() => void modules.reload()} />
      <Section
        title="Your modules"
        id="modules-list"
        actions={
          <button type="button" class="button small" disabled={exportPacs.busy || !modules.data?.length} onClick={() => void exportPacs.run()}>
            Export PACs (CSV)
          </button>
        }
      >
        <Notice error={modules.error ?? exportPacs.error ?? unregister.error} done={exportPacs.done ?? unregister.done} />
        {modules.data && modules.data.length === 0 && <p class="empty">No module registered yet.</p>}
        {modules.data && modules.data.length > 0 && (
          <div class="table-scroll">
            <table class="modules stackable">
              <thead>
                <tr>
                  <th scope="col">Serial</th>
                  <th scope="col">Protocol</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {modules.data.map((module) => {
                  const device = devices[module.serial];
                  return (
                    <tr key={module.serial} data-serial={module.serial}>
                      <th scope="row">
                        <Link href={`/modules/${encodeURIComponent(module.serial)}`} class="mono">
                          {module.serial}
                        </Link>
                      </th>
                      <td data-label="Protocol">{typeof device === 'object' ? device.protocol : ''}</td>
                      <td data-label="Last seen">{typeof device === 'object' ? (device.lastseen ?? <span class="muted">never</span>) : ''}</td>
                      <td data-label="Status">
                        {device === undefined && <span class="muted">loading…</span>}
                        {typeof device === 'string' && <span class="muted">{device}</span>}
                        {typeof device === 'object' && <DeviceBadges device={device} />}
                      </td>
                      <td>
                        <button type="button" class="button small danger-outline" aria-label={`Unregister ${module.serial}`} disabled={unregister.busy} onClick={() => void unregister.run(module)}>
                          Unregister
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Section>
    </Page>
  );
}
