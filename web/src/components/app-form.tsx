import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { TextField } from './field';
import { Notice } from './notice';

export interface AppFormValues {
  name: string;
  description: string;
  callbackurl: string;
}

interface Props {
  /** The values shown; the form resets to them when they change (the app was saved or reloaded). */
  initial: AppFormValues;
  submitLabel: string;
  callbackHint: string;
  /** Receives the trimmed values; a returned string is shown as the success notice. */
  onSubmit: (values: AppFormValues) => Promise<string | void>;
}

/** The fields of an app, for creating one and for editing it. */
export function AppForm({ initial, submitLabel, callbackHint, onSubmit }: Props) {
  const [values, setValues] = useState(initial);
  useEffect(() => setValues(initial), [initial.name, initial.description, initial.callbackurl]);
  const submit = useAction(() =>
    onSubmit({ name: values.name.trim(), description: values.description.trim(), callbackurl: values.callbackurl.trim() }),
  );
  const set = (key: keyof AppFormValues) => (value: string) => setValues((current) => ({ ...current, [key]: value }));
  return (
    <form
      class="stack narrow"
      onSubmit={(event) => {
        event.preventDefault();
        void submit.run();
      }}
    >
      <TextField label="Name" value={values.name} onValue={set('name')} required maxLength={200} />
      <TextField label="Description" value={values.description} onValue={set('description')} maxLength={2000} />
      <TextField
        label="Callback URL"
        type="url"
        value={values.callbackurl}
        onValue={set('callbackurl')}
        placeholder="https://example.com/snsr"
        hint={callbackHint}
      />
      <Notice error={submit.error} done={submit.done} />
      <div class="row">
        <button type="submit" class="button primary" disabled={submit.busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
