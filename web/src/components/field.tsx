import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface TextFieldProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'url';
  hint?: ComponentChildren;
  mono?: boolean;
  class?: string;
  name?: string;
  autoComplete?: string;
  required?: boolean;
  pattern?: string;
  maxLength?: number;
  placeholder?: string;
  spellcheck?: boolean;
  /** Another element describing the input (the hint is added when there is one). */
  describedBy?: string;
  /** What is wrong with the value, shown under the field and announced with it. */
  error?: string | undefined;
}

/** An input with its label and hint tied to it (for= and aria-describedby). */
export function TextField({ label, value, onValue, type = 'text', hint, mono, class: className, describedBy, error, ...rest }: TextFieldProps) {
  const id = useId();
  const described = [describedBy, hint ? `${id}-hint` : undefined, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return (
    <div class={`field ${className ?? ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        // Preact's input typings pair each `type` with its roles; a union of types needs the widening.
        type={type as 'text'}
        class={mono ? 'mono' : undefined}
        value={value}
        onInput={(event) => onValue(event.currentTarget.value)}
        aria-describedby={described || undefined}
        aria-invalid={error ? true : undefined}
        {...rest}
      />
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A label and hint around any control: `children` receives the id and the describedby id to use. */
export function Labelled({ label, hint, children }: { label: string; hint?: ComponentChildren; children: (id: string, describedBy?: string) => ComponentChildren }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(id, hint ? `${id}-hint` : undefined)}
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
    </div>
  );
}
