import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { DeviceLabels } from '../api/types';
import { useAction, useLoad } from '../hooks';
import { TextField } from './field';
import { Notice } from './notice';
import { Section } from './page';
import { TagList } from './tag-list';

/** One device's name, tags and notes, edited in place. */
function LabelsForm({ labels, onSaved }: { labels: DeviceLabels; onSaved: (labels: DeviceLabels) => void }) {
  const [name, setName] = useState(labels.name ?? '');
  const [tags, setTags] = useState(labels.tags.join(', '));
  const [notes, setNotes] = useState(labels.notes ?? '');
  const save = useAction(async () => {
    const saved = await api.setLabels(labels.serial, { name, tags: tags.split(/[\s,]+/).filter(Boolean), notes });
    onSaved(saved);
    setTags(saved.tags.join(', '));
    return `Saved ${labels.serial}.`;
  });
  return (
    <form
      class="labels-form"
      aria-label={`Name, tags and notes of ${labels.serial}`}
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <h3 class="mono">{labels.serial}</h3>
      <TextField label={`Name of ${labels.serial}`} value={name} onValue={setName} maxLength={100} autoComplete="off" />
      <TextField label={`Tags of ${labels.serial}`} value={tags} onValue={setTags} autoComplete="off" spellcheck={false} hint="Separated by commas: a-z, 0-9, _ . : -" />
      <div class="field">
        <label for={`notes-${labels.serial}`}>Notes on {labels.serial}</label>
        <textarea id={`notes-${labels.serial}`} rows={2} maxLength={2000} value={notes} onInput={(event) => setNotes(event.currentTarget.value)} />
      </div>
      <Notice error={save.error} done={save.done} />
      <button type="submit" class="button small" disabled={save.busy}>
        Save
      </button>
    </form>
  );
}

/** Names, tags and notes of a module and its children: the owner's, searchable in the module list. */
export function DeviceLabelsSection({ serial }: { serial: string }) {
  const labels = useLoad(() => api.labels(serial), [serial]);
  const [open, setOpen] = useState(false);
  const module = labels.data?.[0];
  return (
    <Section
      title="Name, tags and notes"
      id="module-labels"
      actions={
        <button type="button" class="button small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Done' : 'Edit'}
        </button>
      }
    >
      <Notice error={labels.error} />
      {module && !open && (
        <div class="labels-summary">
          {module.name ? <strong>{module.name}</strong> : <span class="muted">No name yet.</span>} <TagList tags={module.tags} />
          {module.notes && <span class="notes">{module.notes}</span>}
        </div>
      )}
      {open && labels.data?.map((device) => <LabelsForm key={device.serial} labels={device} onSaved={() => void labels.reload()} />)}
    </Section>
  );
}
