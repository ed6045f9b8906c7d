import { useId, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { Registration } from '../api/types';
import { useAction } from '../hooks';
import { Notice } from './notice';
import { Section } from './page';

export interface ParsedLines {
  modules: { serial: string; key: string }[];
  errors: string[];
}

/** One module a line: serial and key (8 hex) or PAC (16 hex), separated by spaces, commas, `;` or `:`. */
export function parseModuleLines(text: string): ParsedLines {
  const modules: { serial: string; key: string }[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const parts = trimmed.split(/[\s,;:]+/);
    if (parts.length !== 2) errors.push(`line ${index + 1}: expected a serial and a key, got “${trimmed}”`);
    else modules.push({ serial: parts[0]!, key: parts[1]! });
  });
  return { modules, errors };
}

const OUTCOMES: [keyof Registration, string, string][] = [
  ['registered', 'Registered', 'ok'],
  ['already_registered', 'Already registered', 'info'],
  ['not_found', 'Not found', 'bad'],
  ['invalid_key', 'Invalid key', 'bad'],
];

/** Registers several modules at once and shows the API's four result lists. */
export function ModuleRegistration({ onRegistered }: { onRegistered: () => void }) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<Registration>();
  const id = useId();
  const register = useAction(async () => {
    const { modules, errors } = parseModuleLines(text);
    if (errors.length > 0) throw new Error(`Fix these lines first: ${errors.join('; ')}.`);
    if (modules.length === 0) throw new Error('Enter at least one module: its serial and key on a line.');
    const answer = await api.register(modules);
    setResult(answer);
    if (answer.registered.length > 0) onRegistered();
    // Keep the lines that did not register, so they can be corrected and sent again.
    const failed = new Set([...answer.not_found, ...answer.invalid_key].map((s) => s.toUpperCase()));
    setText(modules.filter((m) => failed.has(m.serial.toUpperCase())).map((m) => `${m.serial} ${m.key}`).join('\n'));
  });
  return (
    <Section title="Register modules" id="modules-register">
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void register.run();
        }}
      >
        <div class="field">
          <label for={id}>Modules, one per line: serial and key</label>
          <textarea
            id={id}
            class="mono"
            rows={4}
            value={text}
            spellcheck={false}
            placeholder={'C0FE 1A2B3C4D\nBEEF FEDCBA9876543210'}
            aria-describedby={`${id}-hint`}
            onInput={(event) => setText(event.currentTarget.value)}
          />
          <p id={`${id}-hint`} class="hint">
            The key is the 8 hex digits printed beside the serial on the packaging, or the 16-digit PAC.
          </p>
        </div>
        <Notice error={register.error} />
        <div class="row">
          <button type="submit" class="button primary" disabled={register.busy}>
            Register
          </button>
        </div>
      </form>
      {result && (
        <div class="results" role="status" aria-label="Registration result">
          {OUTCOMES.map(([field, title, tone]) => (
            <section key={field} class={`result result-${tone}`} aria-label={`${title}: ${result[field].length}`} data-result={field}>
              <h3>
                {title} <span class="count">{result[field].length}</span>
              </h3>
              {result[field].length > 0 ? (
                <ul>
                  {result[field].map((serial) => (
                    <li key={serial} class="mono">
                      {serial}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">none</p>
              )}
            </section>
          ))}
        </div>
      )}
    </Section>
  );
}
