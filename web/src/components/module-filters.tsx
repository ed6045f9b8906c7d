import { useEffect, useState } from 'preact/hooks';
import type { ModuleSort, ModuleState } from '../api/types';
import { Labelled, TextField } from './field';

export const STATES: [ModuleState | '', string][] = [
  ['', 'All modules'],
  ['alerting', 'With open alerts'],
  ['low-battery', 'Battery low'],
  ['seen-24h', 'Seen in the last 24 h'],
  ['silent', 'Silent for 24 h or more'],
  ['never-seen', 'Never seen'],
  ['inactive', 'Inactive'],
  ['watched', 'Watched'],
];

export const SORTS: [ModuleSort, string][] = [
  ['lastseen', 'Last seen (newest first)'],
  ['alerts', 'Open alerts (most first)'],
  ['battery', 'Battery (low first)'],
  ['name', 'Name (A–Z)'],
  ['serial', 'Serial'],
];

export interface FilterValue {
  q: string;
  state: ModuleState | '';
  sort?: ModuleSort;
}

/** The search box sends what was typed once typing pauses: one request per search, not per key. */
export function useDebounced<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Search, state filter and (optionally) sort of a module list. */
export function ModuleFilters({ value, onChange, sortable = true, label = 'Search modules' }: { value: FilterValue; onChange: (value: FilterValue) => void; sortable?: boolean; label?: string }) {
  return (
    <div class="filters" role="search">
      <TextField
        label={label}
        value={value.q}
        onValue={(q) => onChange({ ...value, q })}
        class="grow"
        autoComplete="off"
        spellcheck={false}
        placeholder="serial, name or tag"
      />
      <Labelled label="Filter">
        {(id) => (
          <select id={id} value={value.state} onChange={(event) => onChange({ ...value, state: event.currentTarget.value as ModuleState | '' })}>
            {STATES.map(([state, text]) => (
              <option key={state} value={state}>
                {text}
              </option>
            ))}
          </select>
        )}
      </Labelled>
      {sortable && (
        <Labelled label="Sort by">
          {(id) => (
            <select id={id} value={value.sort} onChange={(event) => onChange({ ...value, sort: event.currentTarget.value as ModuleSort })}>
              {SORTS.map(([sort, text]) => (
                <option key={sort} value={sort}>
                  {text}
                </option>
              ))}
            </select>
          )}
        </Labelled>
      )}
    </div>
  );
}
