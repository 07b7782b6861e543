import { useState, type FormEvent } from 'react';
import { dateRangeProblem, MAX_DATE, MIN_DATE } from './date-range.ts';

export type FilterField<F extends string> =
  | { kind: 'text'; name: F; label: string }
  | { kind: 'select'; name: F; label: string; options: ReadonlyArray<{ value: string; label: string }> }
  /** A From/To pair; To cannot precede From. */
  | { kind: 'dates'; from: F; to: F; fromLabel?: string; toLabel?: string };

export interface FilterBarProps<F extends string> {
  fields: ReadonlyArray<FilterField<F>>;
  /** The applied values (from the address); the bar edits a draft of them. */
  applied: Record<F, string>;
  onSearch: (values: Record<F, string>) => void;
  onClear: () => void;
}

/** A list's filters with Search and Clear (docs/behaviour.md#tables-filters-and-dates). */
export function FilterBar<F extends string>({ fields, applied, onSearch, onClear }: FilterBarProps<F>) {
  const [draft, setDraft] = useState(applied);
  const [appliedSeen, setAppliedSeen] = useState(applied);
  // Back, forward or Clear change the address: the draft follows what is applied.
  if (appliedSeen !== applied) {
    setAppliedSeen(applied);
    setDraft(applied);
  }
  const set = (name: F, value: string) => setDraft((current) => ({ ...current, [name]: value }));

  const problems = fields.flatMap((field) => (field.kind === 'dates' ? [dateRangeProblem(draft[field.from], draft[field.to])] : []));
  const problem = problems.find((p) => p !== null) ?? null;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (problem === null) onSearch(draft);
  }

  return (
    <form className="filter-bar" role="search" onSubmit={submit}>
      {fields.map((field) => {
        if (field.kind === 'text') {
          return (
            <label key={field.name}>
              {field.label}
              <input type="text" value={draft[field.name]} onChange={(e) => set(field.name, e.target.value)} />
            </label>
          );
        }
        if (field.kind === 'select') {
          return (
            <label key={field.name}>
              {field.label}
              <select value={draft[field.name]} onChange={(e) => set(field.name, e.target.value)}>
                {field.options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </label>
          );
        }
        return (
          <span key={field.from} className="date-range">
            <label>
              {field.fromLabel ?? 'From Date'}
              <input
                type="date"
                min={MIN_DATE}
                max={draft[field.to] || MAX_DATE}
                value={draft[field.from]}
                onChange={(e) => set(field.from, e.target.value)}
              />
            </label>
            <label>
              {field.toLabel ?? 'To Date'}
              <input
                type="date"
                min={draft[field.from] || MIN_DATE}
                max={MAX_DATE}
                value={draft[field.to]}
                onChange={(e) => set(field.to, e.target.value)}
              />
            </label>
          </span>
        );
      })}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      <span className="filter-actions">
        <button type="submit" className="button primary" disabled={problem !== null}>
          Search
        </button>
        <button
          type="button"
          className="button"
          onClick={() => {
            // What was typed but never searched goes too.
            setDraft(Object.fromEntries(Object.keys(draft).map((name) => [name, ''])) as Record<F, string>);
            onClear();
          }}
        >
          Clear
        </button>
      </span>
    </form>
  );
}
