/** The queue's filter form: every choice is written into the address (the search after a pause in typing). */
import type { ComponentChildren, RefObject } from 'preact';
import type { Datasource, Level, Tag } from '../../api/client';
import { PAGE_SIZES, SORTS, type FilterChanges, type Filters } from './filters';

export interface QueueFiltersProps {
  filters: Filters;
  /** The address's query, for the review status as written (`any` is no filter). */
  query: URLSearchParams;
  choices: { datasources: Datasource[]; levels: Level[]; tags: Tag[] };
  /** There is sample data to show or hide; `sampleShown`: the list shows it. */
  hasSample: boolean;
  sampleShown: boolean;
  searchText: string;
  searchInput: RefObject<HTMLInputElement | null>;
  search: (text: string, now: boolean) => void;
  set: (changes: FilterChanges) => void;
}

export function QueueFilters({
  filters,
  query,
  choices,
  hasSample,
  sampleShown,
  searchText,
  searchInput,
  search,
  set,
}: QueueFiltersProps) {
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        search(searchInput.current?.value ?? searchText, true);
      }}
      aria-label="Queue filters"
    >
      <Choice label="Data source" value={filters.datasource_id ?? ''} onChange={(v) => set({ datasource_id: v })}>
        <option value="">All</option>
        {choices.datasources.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
          </option>
        ))}
      </Choice>
      <Choice label="Severity" value={filters.severity ?? ''} onChange={(v) => set({ severity: v })}>
        <option value="">All</option>
        <option value="high">High</option>
        <option value="medium">Medium</option>
        <option value="low">Low</option>
      </Choice>
      <Choice label="Level" value={filters.level ?? ''} onChange={(v) => set({ level: v })}>
        <option value="">All</option>
        {choices.levels.map((l) => (
          <option key={l.code} value={l.code}>
            {l.code} {l.name}
          </option>
        ))}
      </Choice>
      <Choice label="Tag" value={filters.tag_id ? String(filters.tag_id) : ''} onChange={(v) => set({ tag_id: v })}>
        <option value="">All</option>
        {choices.tags.map((t) => (
          <option key={t.id} value={t.id}>
            {t.chain_path}
          </option>
        ))}
      </Choice>
      <Choice
        label="Review status"
        value={query.get('review_status') ?? 'unreviewed'}
        onChange={(v) => set({ review_status: v })}
      >
        <option value="unreviewed">Unreviewed</option>
        <option value="deferred">Deferred</option>
        <option value="confirmed">Confirmed</option>
        <option value="any">Any</option>
      </Choice>
      <Choice label="View" value={filters.changed ?? ''} onChange={(v) => set({ changed: v })}>
        <option value="">All fields</option>
        <option value="last_scan">Changed since last scan</option>
      </Choice>
      <label>
        Search
        <input
          ref={searchInput}
          type="search"
          placeholder="table or column"
          maxLength={128}
          value={searchText}
          onInput={(e) => search((e.target as HTMLInputElement).value, false)}
        />
      </label>
      <Choice label="Order" value={filters.sort} onChange={(v) => set({ sort: v === 'risk' ? undefined : v })}>
        {SORTS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </Choice>
      <Choice label="Rows" value={String(filters.limit)} onChange={(v) => set({ limit: v })}>
        {PAGE_SIZES.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </Choice>
      {hasSample && (
        <SampleToggle
          checked={filters.include_sample ?? sampleShown}
          onChange={(checked) => set({ include_sample: String(checked) })}
        />
      )}
    </form>
  );
}

/** A labelled select of the form; `onChange` gets the chosen value. */
function Choice({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ComponentChildren;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {children}
      </select>
    </label>
  );
}

function SampleToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      Show sample data
    </label>
  );
}
