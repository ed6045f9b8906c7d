import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { AppRetention, Retention, RetentionSource } from '../api/types';
import { useAction, useLoad } from '../hooks';
import { Labelled } from './field';
import { Notice } from './notice';

type Kind = 'messages_days' | 'raw_days';
type Choice = { messages_days: number | null; raw_days: number | null };

const kept = (days: number) => (days === 0 ? 'kept forever' : `kept ${days} ${days === 1 ? 'day' : 'days'}`);
const parse = (text: string): number | null => (text.trim() === '' ? null : Number(text));

function from(source: RetentionSource): string {
  if (source.from === 'app') return ` (app “${source.name}”, the longest choice of the module's apps)`;
  return source.from === 'default' ? " (the operator's default)" : '';
}

/** A module's hint: what is in force and where it comes from. */
const moduleHint = (data: Retention, kind: Kind) => `Now ${kept(data.effective[kind])}${from(data.source[kind])}.`;

/** An app's hint: its choice, which its modules follow unless they have their own or another app keeps longer. */
const appHint = (data: AppRetention, kind: Kind) =>
  data[kind] === null ? `No choice: its modules follow the operator's default (${kept(data.defaults[kind])}).` : `Modules without their own choice: ${kept(data[kind])}, unless another of their apps keeps longer.`;

/**
 * How long uplink data is kept, for a module (its owner's choice, what is in force and where it
 * comes from) or for an app (its choice for every module attached to it), in days (0: forever),
 * or empty for no choice.
 */
export function RetentionControl(props: { serial: string } | { app: { id: number; name: string } }) {
  const isModule = 'serial' in props;
  const name = isModule ? props.serial : `app “${props.app.name}”`;
  const key = isModule ? props.serial : props.app.id;
  const load = () => (isModule ? api.retention(props.serial) : api.appRetention(props.app.id));
  const store = (choice: Choice) => (isModule ? api.setRetention(props.serial, choice) : api.setAppRetention(props.app.id, choice));
  const retention = useLoad<Retention | AppRetention>(load, [key]);
  const [messages, setMessages] = useState('');
  const [raw, setRaw] = useState('');
  useEffect(() => {
    if (!retention.data) return;
    setMessages(retention.data.messages_days === null ? '' : String(retention.data.messages_days));
    setRaw(retention.data.raw_days === null ? '' : String(retention.data.raw_days));
  }, [retention.data]);
  const save = useAction(async () => {
    retention.set(await store({ messages_days: parse(messages), raw_days: parse(raw) }));
    return `Retention of ${name} saved.`;
  });
  const data = retention.data;
  const hint = (kind: Kind) => data && ('effective' in data ? moduleHint(data, kind) : appHint(data, kind));
  return (
    <form
      class="retention"
      aria-label={`Retention of ${name}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <Notice error={retention.error} />
      <div class="retention-fields">
        <Labelled label="Messages (days)" hint={hint('messages_days')}>
          {(id, describedBy) => (
            <input id={id} type="number" min={0} max={36500} step={1} inputMode="numeric" placeholder="default" value={messages} aria-describedby={describedBy} onInput={(event) => setMessages(event.currentTarget.value)} />
          )}
        </Labelled>
        <Labelled label="Raw uplinks and station reports (days)" hint={hint('raw_days')}>
          {(id, describedBy) => (
            <input id={id} type="number" min={0} max={36500} step={1} inputMode="numeric" placeholder="default" value={raw} aria-describedby={describedBy} onInput={(event) => setRaw(event.currentTarget.value)} />
          )}
        </Labelled>
        <button type="submit" class="button" disabled={save.busy || !data}>
          Save retention
        </button>
      </div>
      <p class="hint">
        {isModule
          ? "0 keeps them forever; empty follows the module's apps (the longest choice wins), else the operator's default. Older data is deleted in the background."
          : "Applies to every module attached to this app: 0 keeps forever, empty is no choice. A module's own choice wins; among its apps the longest wins."}
      </p>
      <Notice error={save.error} done={save.done} />
    </form>
  );
}
