/** The queue's filters live in the address: read from it, changed through it, and the search box typed into it. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Datasource, Level, Tag } from '../../api/client';
import { loadDatasources, loadLevels, loadTags } from '../../data';
import { navigate, useLocation } from '../../router';
import { filtersOf, urlOf, type FilterChanges } from './filters';

/** How long the search waits after the last key before it narrows the list. */
const SEARCH_DEBOUNCE_MS = 250;

export function useQueueFilters() {
  const { query } = useLocation();
  const filtersKey = query.toString();
  const filters = useMemo(() => filtersOf(query), [filtersKey]);
  const [searchText, setSearchText] = useState(filters.q ?? '');
  const searchInput = useRef<HTMLInputElement>(null);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(searchTimer.current), []);

  // Typed elsewhere (back, a link): the search box shows the address's text, unless the reviewer is typing in it.
  useEffect(() => {
    if (document.activeElement !== searchInput.current) setSearchText(filters.q ?? '');
  }, [filters.q]);

  /** Changes filters in the address (read at call time, so a late search never undoes a newer change). */
  const set = (changes: FilterChanges, options: { replace?: boolean } = {}) =>
    navigate(urlOf(new URLSearchParams(location.search), changes), options);

  const search = (text: string, now: boolean) => {
    setSearchText(text);
    clearTimeout(searchTimer.current);
    // Typing replaces the address rather than adding a history entry per pause; Back leaves the search.
    const apply = () =>
      set({ q: text.trim().slice(0, 128) }, { replace: (new URLSearchParams(location.search).get('q') ?? '') !== '' });
    if (now) apply();
    else searchTimer.current = setTimeout(apply, SEARCH_DEBOUNCE_MS);
  };

  return { query, filtersKey, filters, set, searchText, search, searchInput };
}

/** What the filters offer to choose from: data sources, levels and tags (each left empty when it cannot be read). */
export function useFilterChoices() {
  const [datasources, setDatasources] = useState<Datasource[]>([]);
  const [levels, setLevels] = useState<Level[]>([]);
  const [tags, setTags] = useState<Tag[]>([]);
  useEffect(() => {
    void loadDatasources().then(setDatasources, () => undefined);
    void loadLevels().then(setLevels, () => undefined);
    void loadTags().then(setTags, () => undefined);
  }, []);
  return { datasources, levels, tags };
}
