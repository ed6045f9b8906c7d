import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import { useAction, useLoad } from '../hooks';
import { Labelled } from './field';
import { Notice } from './notice';

const kept = (days: number) => (days === 0 ? 'kept forever' : `kept ${days} ${days === 1 ? 'day' : 'days'}`);
const parse = (text: string): number | null => (text.trim() === '' ? null : Number(text));

/**
 * How long the module's messages and raw uplinks are kept: the owner's choice in days (0: forever),
 * or empty for the operator's default; what is in force is shown beside each.
 */
export function RetentionControl({ serial }: { serial: string }) {
  const retention = useLoad(() => api.retention(serial), [serial]);
  const [messages, setMessages] = useState('');
  const [raw, setRaw] = useState('');
  useEffect(() => {
    if (!retention.data) return;
    setMessages(retention.data.messages_days === null ? '' : String(retention.data.messages_days));
    setRaw(retention.data.raw_days === null ? '' : String(retention.data.raw_days));
  }, [retention.data]);
  const save = useAction(async () => {
    retention.set(await api.setRetention(serial, { messages_days: parse(messages), raw_days: parse(raw) }));
    return `Retention of ${serial} saved.`;
  });
  const data = retention.data;
  return (
    <form
      class="retention"
      aria-label={`Retention of ${serial}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <Notice error={retention.error} />
      <div class="retention-fields">
        <Labelled label="Messages (days)" hint={data && `Now ${kept(data.effective.messages_days)}${data.messages_days === null ? " (the operator's default)" : ''}.`}>
          {(id, describedBy) => (
            <input id={id} type="number" min={0} max={36500} step={1} inputMode="numeric" placeholder="default" value={messages} aria-describedby={describedBy} onInput={(event) => setMessages(event.currentTarget.value)} />
          )}
        </Labelled>
        <Labelled label="Raw uplinks and station reports (days)" hint={data && `Now ${kept(data.effective.raw_days)}${data.raw_days === null ? " (the operator's default)" : ''}.`}>
          {(id, describedBy) => (
            <input id={id} type="number" min={0} max={36500} step={1} inputMode="numeric" placeholder="default" value={raw} aria-describedby={describedBy} onInput={(event) => setRaw(event.currentTarget.value)} />
          )}
        </Labelled>
        <button type="submit" class="button" disabled={save.busy || !data}>
          Save retention
        </button>
      </div>
      <p class="hint">0 keeps them forever; empty follows the operator's default. Older data is deleted in the background.</p>
      <Notice error={save.error} done={save.done} />
    </form>
  );
}
