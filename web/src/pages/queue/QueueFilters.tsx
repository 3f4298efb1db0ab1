/** The queue's filter form: every choice is written into the address (the search after a pause in typing). */
import type { RefObject } from 'preact';
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
  const value = (e: Event) => (e.target as HTMLSelectElement).value;
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        search(searchInput.current?.value ?? searchText, true);
      }}
      aria-label="Queue filters"
    >
      <label>
        Data source
        <select value={filters.datasource_id ?? ''} onChange={(e) => set({ datasource_id: value(e) })}>
          <option value="">All</option>
          {choices.datasources.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Severity
        <select value={filters.severity ?? ''} onChange={(e) => set({ severity: value(e) })}>
          <option value="">All</option>
          <option value="high">High</option>
          <option value="medium">Medium</option>
          <option value="low">Low</option>
        </select>
      </label>
      <label>
        Level
        <select value={filters.level ?? ''} onChange={(e) => set({ level: value(e) })}>
          <option value="">All</option>
          {choices.levels.map((l) => (
            <option key={l.code} value={l.code}>
              {l.code} {l.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Tag
        <select value={filters.tag_id ? String(filters.tag_id) : ''} onChange={(e) => set({ tag_id: value(e) })}>
          <option value="">All</option>
          {choices.tags.map((t) => (
            <option key={t.id} value={t.id}>
              {t.chain_path}
            </option>
          ))}
        </select>
      </label>
      <label>
        Review status
        <select value={query.get('review_status') ?? 'unreviewed'} onChange={(e) => set({ review_status: value(e) })}>
          <option value="unreviewed">Unreviewed</option>
          <option value="deferred">Deferred</option>
          <option value="confirmed">Confirmed</option>
          <option value="any">Any</option>
        </select>
      </label>
      <label>
        View
        <select value={filters.changed ?? ''} onChange={(e) => set({ changed: value(e) })}>
          <option value="">All fields</option>
          <option value="last_scan">Changed since last scan</option>
        </select>
      </label>
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
      <label>
        Order
        <select value={filters.sort} onChange={(e) => set({ sort: value(e) === 'risk' ? undefined : value(e) })}>
          {SORTS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Rows
        <select value={String(filters.limit)} onChange={(e) => set({ limit: value(e) })}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      {hasSample && (
        <label class="check">
          <input
            type="checkbox"
            checked={filters.include_sample ?? sampleShown}
            onChange={(e) => set({ include_sample: String((e.target as HTMLInputElement).checked) })}
          />
          Show sample data
        </label>
      )}
    </form>
  );
}
