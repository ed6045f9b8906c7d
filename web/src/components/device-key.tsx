import { useState } from 'preact/hooks';
import { api } from '../api/api';
import { confirmAction } from './confirm';
import { CopyButton } from './copy-button';
import { TextField } from './field';
import { Notice } from './notice';
import { Section } from './page';
import { useAction } from '../hooks';

/**
 * The module's device key: whoever knows the key printed on the module (a previous owner, say) can
 * mint device tokens, so the owner may replace it with one of their own or a generated one.
 */
export function DeviceKey({ serial }: { serial: string }) {
  const [key, setKey] = useState('');
  const [current, setCurrent] = useState<string>();
  const rekey = useAction(async () => {
    const ok = await confirmAction(
      `Set a new device key on ${serial}?`,
      'The printed key, the PAC and every device token minted so far stop working. Devices and apps must get a new token with the new key.',
      'Set new key',
    );
    if (!ok) return;
    const result = await api.rekey(serial, key.trim());
    setCurrent(result.key);
    setKey('');
    return `${result.serial} has a new device key.`;
  });
  return (
    <Section title="Device key" id="module-key">
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          void rekey.run();
        }}
      >
        <TextField
          label="New key"
          value={key}
          onValue={setKey}
          mono
          pattern="[0-9A-Fa-f]{8}"
          maxLength={8}
          spellcheck={false}
          autoComplete="off"
          hint="8 hex digits; leave empty to have one generated."
        />
        <button type="submit" class="button" disabled={rekey.busy}>
          Set new key
        </button>
      </form>
      <Notice error={rekey.error} done={rekey.done} />
      {current && (
        <div class="field">
          <label for="module-new-key">Key now in force (get device tokens with it)</label>
          <div class="input-row">
            <input id="module-new-key" class="mono" type="text" readOnly value={current} autoComplete="off" spellcheck={false} />
            <CopyButton text={current} label="Copy the new device key" />
          </div>
        </div>
      )}
      <p class="hint">Set one after taking over a module: whoever knew its printed key can no longer read it.</p>
    </Section>
  );
}
