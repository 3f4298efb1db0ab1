/**
 * The review queue: fields in the chosen order (risk by default: sort=risk when the server offers it, else outlier
 * score), six minibars per row against the page's baseline, one-key decisions (j/k move, Enter opens, c confirm,
 * d defer, x select, a accept a suggestion, ? lists the keys), multi-select and batch confirm, confirm as another tag
 * or level, defer with a reason. Views: all fields or those the last scan changed (changed=last_scan); the sample
 * catalog is left out once a real data source exists (include_sample=false), with a toggle to show it.
 *
 * What is on screen is what is acted on: the grid draws the list it holds (a new list redraws it from the top), every
 * action goes through the rows of that list (a row is found by its field id, never by its place alone), and while
 * a new list is loading the old rows are shown dimmed and take no decision. A new list keeps the selection only of
 * the rows it still shows.
 */
import { Component, type ComponentChild, type RefObject } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, extras, ok, serverCapabilities, type Datasource, type FieldItem, type Level, type MinibarItem, type MinibarsResponse, type Suggestion, type Tag } from '../api/client';
import { session } from '../api/session';
import { Dialog } from '../components/Dialog';
import { LockIcon } from '../components/icons';
import { acceptBody, confirmField, confirmFields, ConfirmAsDialog, deferFields, DeferDialog, type ConfirmBody } from '../components/decisions';
import { AXES, AXIS_LABELS, Minibars } from '../components/Minibars';
import { ProblemNotice, explain } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources, loadLevels, loadTags } from '../data';
import { navigate, useLocation } from '../router';
import { ExportButtons, UploadDecisionsDialog } from '../components/QueueTransfer';

type ReviewStatus = 'unreviewed' | 'confirmed' | 'deferred';
type Severity = 'low' | 'medium' | 'high';
/** The orders the queue offers; `risk` falls back to the outlier score on a server without sort=risk. */
type Sort = 'risk' | 'updated_at' | 'name';
const SORTS: ReadonlyArray<{ value: Sort; label: string }> = [
  { value: 'risk', label: 'Risk (most suspicious first)' },
  { value: 'updated_at', label: 'Newest change' },
  { value: 'name', label: 'Name' },
];

/** How long the search waits after the last key before it narrows the list. */
const SEARCH_DEBOUNCE_MS = 250;

interface Filters {
  datasource_id?: string;
  severity?: Severity;
  level?: string;
  tag_id?: number;
  review_status?: ReviewStatus;
  q?: string;
  /** The "Changed since last scan" view: fields the last finished scan of their source created, changed or re-classified. */
  changed?: 'last_scan';
  /** The reviewer's choice of the sample data; unset: hidden once a real (non-sample) data source exists. */
  include_sample?: boolean;
  sort: Sort;
  limit: number;
  cursor?: string;
}

function filtersOf(query: URLSearchParams): Filters {
  const s = (k: string) => query.get(k) || undefined;
  const tag = Number(query.get('tag_id'));
  const limit = Number(query.get('limit'));
  const status = query.get('review_status');
  const sort = query.get('sort');
  return {
    datasource_id: s('datasource_id'),
    severity: s('severity') as Severity | undefined,
    level: s('level'),
    tag_id: Number.isInteger(tag) && tag > 0 ? tag : undefined,
    // The queue opens on what still needs a decision; "any" shows everything.
    review_status: status === 'any' ? undefined : ((status || 'unreviewed') as ReviewStatus),
    q: s('q'),
    changed: query.get('changed') === 'last_scan' ? 'last_scan' : undefined,
    include_sample: query.get('include_sample') === 'true' ? true : query.get('include_sample') === 'false' ? false : undefined,
    sort: SORTS.some((o) => o.value === sort) ? (sort as Sort) : 'risk',
    limit: [50, 100, 200, 500].includes(limit) ? limit : 100,
    cursor: s('cursor'),
  };
}

/** The queue's filters as the export's query: what the list shows, every page of it (no sort, limit or cursor). */
function exportQuery(f: Filters, sampleShown: boolean): Record<string, string> {
  const q: Record<string, string> = { include_sample: String(f.include_sample ?? sampleShown) };
  for (const key of ['datasource_id', 'severity', 'level', 'review_status', 'q', 'changed'] as const) if (f[key]) q[key] = f[key];
  if (f.tag_id) q.tag_id = String(f.tag_id);
  return q;
}

function urlOf(query: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
  }
  if (!('cursor' in changes)) next.delete('cursor');
  const qs = next.toString();
  return `/queue${qs ? `?${qs}` : ''}`;
}

type Modal = { kind: 'defer'; ids: string[] } | { kind: 'confirm-as'; ids: string[] } | { kind: 'keys' } | null;

/** A list as loaded: the filters it answers (their address) and a number that changes with every load. */
interface Loaded {
  key: string;
  seq: number;
  rows: FieldItem[];
}

export function QueuePage() {
  const { query } = useLocation();
  const filtersKey = query.toString();
  const filters = useMemo(() => filtersOf(query), [filtersKey]);
  const canReview = session.can('field:review');
  const [list, setList] = useState<Loaded | null>(null);
  const [metrics, setMetrics] = useState<Map<string, MinibarItem>>(new Map());
  const [baseline, setBaseline] = useState<MinibarsResponse['baseline_scores'] | undefined>();
  const [metricsError, setMetricsError] = useState<unknown>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [active, setActive] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Confirmed on this page: their stored score, severity, minibars and suggestion were for the old classification
  // (the server recomputes them in the background), so the row shows none of them.
  const [rescoring, setRescoring] = useState<Set<string>>(new Set());
  const [modal, setModal] = useState<Modal>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const [datasources, setDatasources] = useState<Datasource[]>([]);
  const [levels, setLevels] = useState<Level[]>([]);
  const [tags, setTags] = useState<Tag[]>([]);
  const [riskSort, setRiskSort] = useState(false);
  // Whether the list shows the built-in sample data, and whether there is any to show.
  const [sampleShown, setSampleShown] = useState(true);
  const [hasSample, setHasSample] = useState(false);
  // Bumped after an upload of decisions: the list is read again with the same filters.
  const [reloads, setReloads] = useState(0);
  const [uploading, setUploading] = useState(false);
  const [searchText, setSearchText] = useState(filters.q ?? '');
  const table = useRef<HTMLDivElement>(null);
  const searchInput = useRef<HTMLInputElement>(null);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const loads = useRef(0);
  // Set by j/k: the current row takes the focus once it is drawn.
  const focusRequest = useRef(false);

  const rows = list?.rows ?? null;
  // The filters changed and their list is not here yet: the rows on screen answer the old filters.
  const stale = list !== null && list.key !== filtersKey;
  const locked = busy || stale;

  useEffect(() => {
    void loadDatasources().then(setDatasources, () => undefined);
    void loadLevels().then(setLevels, () => undefined);
    void loadTags().then(setTags, () => undefined);
    return () => clearTimeout(searchTimer.current);
  }, []);

  useEffect(() => {
    let cancelled = false;
    setError(null);
    void (async () => {
      try {
        const caps = await serverCapabilities();
        setRiskSort(caps.riskSort);
        const { cursor, sort, include_sample, ...rest } = filters;
        // sort=risk is the order reviewers want; until the server offers it, the outlier score is the closest.
        const apiSort = (sort === 'risk' ? (caps.riskSort ? 'risk' : 'outlier_score') : sort) as 'outlier_score';
        // The sample catalog would fill the top of the queue: hidden once the reviewer has a source of their own
        // (a role that cannot list data sources gets the API's default, everything).
        const sources = await loadDatasources().catch(() => null);
        const includeSample = include_sample ?? !(sources ?? []).some((d) => !d.is_sample);
        const page = await ok(api.GET('/api/v1/fields', { params: { query: { ...rest, sort: apiSort, include_sample: includeSample, ...(cursor ? { cursor } : {}) } } }));
        let bars: MinibarsResponse | undefined;
        let barsError: unknown = null;
        if (page.items.length > 0) {
          try {
            bars = await ok(api.POST('/api/v1/classify/fields/embedding-minibars', { body: { field_ids: page.items.map((f) => f.id) } }));
          } catch (e) {
            barsError = e;
          }
        }
        if (cancelled) return;
        performance.clearMarks('queue-render-start');
        performance.mark('queue-render-start', { detail: { rows: page.items.length } });
        const shown = new Set(page.items.map((f) => f.id));
        setList({ key: filtersKey, seq: ++loads.current, rows: page.items });
        setMetrics(new Map((bars?.items ?? []).map((m) => [m.field_id, m])));
        setBaseline(bars?.baseline_scores);
        setMetricsError(barsError);
        setNextCursor(page.next_cursor);
        setSampleShown(includeSample);
        setHasSample((sources ?? []).some((d) => d.is_sample));
        setActive(0);
        setRescoring(new Set());
        // Narrowing keeps the ticks of the rows still shown, and only those.
        setSelected((current) => new Set([...current].filter((id) => shown.has(id))));
      } catch (e) {
        if (!cancelled) setError(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [filtersKey, reloads]);

  // Typed elsewhere (back, a link): the search box shows the address's text, unless the reviewer is typing in it.
  useEffect(() => {
    if (document.activeElement !== searchInput.current) setSearchText(filters.q ?? '');
  }, [filters.q]);

  // Render time of a page of rows, layout included: from the data's arrival to the rows laid out.
  useLayoutEffect(() => {
    if (!rows || performance.getEntriesByName('queue-render-start').length === 0) return;
    performance.mark('queue-commit');
    void table.current?.offsetHeight;
    performance.mark('queue-render-end');
    performance.measure('queue-render', 'queue-render-start', 'queue-render-end');
    performance.clearMarks('queue-render-start');
    document.body.dataset.queueRows = String(rows.length);
  }, [list?.seq]);

  const dsName = useMemo(() => new Map(datasources.map((d) => [d.id, d.name])), [datasources]);
  // The ticked rows among those on screen: the only ones a batch acts on.
  const selectedShown = useMemo(() => (rows ?? []).filter((r) => selected.has(r.id)).map((r) => r.id), [rows, selected]);

  /** The ids among `ids` that the current list shows (a decision never reaches a row that is not on screen). */
  const onScreen = (ids: readonly string[]): string[] => {
    if (!rows || stale) return [];
    const shown = new Set(rows.map((r) => r.id));
    return ids.filter((id) => shown.has(id));
  };

  const patchRows = (patch: (row: FieldItem) => FieldItem) => setList((current) => (current ? { ...current, rows: current.rows.map(patch) } : current));

  /** Shows the decision at once, then the fields as the server now has them. */
  const decided = async (ids: string[], reviewStatus: ReviewStatus) => {
    const decidedIds = new Set(ids);
    if (reviewStatus === 'confirmed') {
      setRescoring((current) => new Set([...current, ...ids]));
      setMetrics((current) => new Map([...current].filter(([id]) => !decidedIds.has(id))));
    }
    patchRows((r) => (decidedIds.has(r.id) ? { ...r, review_status: reviewStatus } : r));
    const fresh = await Promise.all(ids.map((id) => ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).catch(() => undefined)));
    const byId = new Map(fresh.filter((f): f is FieldItem => f !== undefined).map((f) => [f.id, f]));
    patchRows((r) => byId.get(r.id) ?? r);
  };

  const act = async (what: string, run: () => Promise<{ message: string; done: string[]; status: ReviewStatus }>) => {
    setBusy(true);
    setError(null);
    try {
      const result = await run();
      setStatus(result.message);
      await decided(result.done, result.status);
    } catch (e) {
      setError(e);
      setStatus(`${what} failed: ${explain(e).summary}`);
    } finally {
      setBusy(false);
    }
  };

  const confirmOne = (field: FieldItem, body: ConfirmBody = {}) => {
    if (onScreen([field.id]).length === 0) return;
    return act('Confirm', async () => {
      await confirmField(field.id, body);
      return { message: `Confirmed ${field.table_name}.${field.field_name}.`, done: [field.id], status: 'confirmed' };
    });
  };

  const confirmMany = (wanted: string[], body: ConfirmBody = {}) => {
    const ids = onScreen(wanted);
    if (ids.length === 0) return;
    return act('Batch confirm', async () => {
      const result = await confirmFields(ids, body);
      setSelected(new Set());
      return {
        message: `Confirmed ${result.confirmed.length}, skipped ${result.skipped}, errors ${result.errors}.`,
        done: result.confirmed,
        status: 'confirmed',
      };
    });
  };

  const deferMany = (wanted: string[], reason: string) => {
    const ids = onScreen(wanted);
    if (ids.length === 0) return;
    return act('Defer', async () => {
      await deferFields(ids, reason);
      if (ids.length > 1) setSelected(new Set());
      return { message: `Deferred ${ids.length} field${ids.length === 1 ? '' : 's'}.`, done: ids, status: 'deferred' };
    });
  };

  const suggestionOf = (field: FieldItem) =>
    rescoring.has(field.id) ? null : (extras(field).suggested_classification ?? extras(metrics.get(field.id)).suggested_classification ?? null);

  const acceptSuggestion = (field: FieldItem) => {
    const s = suggestionOf(field);
    if (s) void confirmOne(field, acceptBody(s));
  };

  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  // Keyboard: only when no dialog is open and the focus is not in a form control. The handler is replaced on every
  // render (a render follows each key in the same turn), so a quick run of keys never acts on a stale row.
  const onKeyRef = useRef<(event: KeyboardEvent) => void>(() => undefined);
  onKeyRef.current = (event: KeyboardEvent) => {
    if (modal || event.metaKey || event.ctrlKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest('input, textarea, select, dialog, [contenteditable]')) return;
    if (event.key === '?') {
      event.preventDefault();
      setModal({ kind: 'keys' });
      return;
    }
    // While a new list loads, the rows on screen are the old one's: no key acts on them.
    if (!rows || rows.length === 0 || stale) return;
    const field = rows[active];
    switch (event.key) {
      case 'j':
        focusRequest.current = true;
        setActive((a) => Math.min(rows.length - 1, a + 1));
        break;
      case 'k':
        focusRequest.current = true;
        setActive((a) => Math.max(0, a - 1));
        break;
      case 'x':
        if (canReview && field) toggle(field.id);
        break;
      case 'c':
        if (canReview && field && !busy) void confirmOne(field);
        break;
      case 'd':
        if (canReview && field) setModal({ kind: 'defer', ids: [field.id] });
        break;
      case 'a':
        if (canReview && field && !busy) acceptSuggestion(field);
        break;
      case 'Enter':
        // A link or a button keeps its own Enter; anywhere else Enter opens the current row.
        if (!field || target.closest('a, button')) return;
        navigate(`/fields/${field.id}`);
        break;
      default:
        return;
    }
    event.preventDefault();
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => onKeyRef.current(event);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // One listener for every row's controls (a 500-row page would otherwise attach 2,500), found by data-action.
  const onRowsClick = (event: MouseEvent) => {
    const target = event.target as HTMLElement;
    const rowEl = target.closest<HTMLElement>('[data-index]');
    if (!rowEl || !rows) return;
    const index = Number(rowEl.dataset.index);
    const field = rows[index];
    const action = target.closest<HTMLElement>('[data-action]')?.dataset.action;
    // The row must be the one the list holds at that place; a row of an old list takes no decision.
    if (!field || field.id !== rowEl.dataset.fieldId || stale) {
      if (action === 'select') event.preventDefault();
      return;
    }
    setActive(index);
    // Decisions wait for the one under way (the row buttons stay enabled, so a decision does not redraw every row).
    if (!action || !canReview || (busy && action !== 'select')) {
      if (action === 'select' && !canReview) event.preventDefault();
      return;
    }
    if (action === 'select') toggle(field.id);
    else if (action === 'confirm') void confirmOne(field);
    else if (action === 'change') setModal({ kind: 'confirm-as', ids: [field.id] });
    else if (action === 'defer') setModal({ kind: 'defer', ids: [field.id] });
    else if (action === 'accept') acceptSuggestion(field);
  };

  /** Changes filters in the address (read at call time, so a late search never undoes a newer change). */
  const set = (changes: Record<string, string | undefined>, options: { replace?: boolean } = {}) => navigate(urlOf(new URLSearchParams(location.search), changes), options);

  const search = (text: string, now: boolean) => {
    setSearchText(text);
    clearTimeout(searchTimer.current);
    // Typing replaces the address rather than adding a history entry per pause; Back leaves the search.
    const apply = () => set({ q: text.trim().slice(0, 128) }, { replace: (new URLSearchParams(location.search).get('q') ?? '') !== '' });
    if (now) apply();
    else searchTimer.current = setTimeout(apply, SEARCH_DEBOUNCE_MS);
  };

  return (
    <section aria-labelledby="queue-title">
      <h1 id="queue-title">Review queue</h1>
      <p class="muted">
        {filters.sort === 'risk'
          ? `Most suspicious first (${riskSort ? 'risk order' : 'by outlier score; risk order when the server offers it'}).`
          : filters.sort === 'updated_at'
            ? 'Newest change first.'
            : 'By field name.'}{' '}
        Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>Enter</kbd> opens,{' '}
        {canReview ? (
          <>
            <kbd>c</kbd> confirm, <kbd>d</kbd> defer, <kbd>x</kbd> select, <kbd>a</kbd> accept a suggestion,{' '}
          </>
        ) : null}
        <kbd>?</kbd> all keys.
      </p>
      {!canReview && (
        <div class="notice info" role="note" data-testid="read-only">
          Read-only: your roles do not grant <code>field:review</code>, so decisions are not offered.
        </div>
      )}
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
          <select value={filters.datasource_id ?? ''} onChange={(e) => set({ datasource_id: (e.target as HTMLSelectElement).value })}>
            <option value="">All</option>
            {datasources.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Severity
          <select value={filters.severity ?? ''} onChange={(e) => set({ severity: (e.target as HTMLSelectElement).value })}>
            <option value="">All</option>
            <option value="high">High</option>
            <option value="medium">Medium</option>
            <option value="low">Low</option>
          </select>
        </label>
        <label>
          Level
          <select value={filters.level ?? ''} onChange={(e) => set({ level: (e.target as HTMLSelectElement).value })}>
            <option value="">All</option>
            {levels.map((l) => (
              <option key={l.code} value={l.code}>
                {l.code} {l.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tag
          <select value={filters.tag_id ? String(filters.tag_id) : ''} onChange={(e) => set({ tag_id: (e.target as HTMLSelectElement).value })}>
            <option value="">All</option>
            {tags.map((t) => (
              <option key={t.id} value={t.id}>
                {t.chain_path}
              </option>
            ))}
          </select>
        </label>
        <label>
          Review status
          <select value={query.get('review_status') ?? 'unreviewed'} onChange={(e) => set({ review_status: (e.target as HTMLSelectElement).value })}>
            <option value="unreviewed">Unreviewed</option>
            <option value="deferred">Deferred</option>
            <option value="confirmed">Confirmed</option>
            <option value="any">Any</option>
          </select>
        </label>
        <label>
          View
          <select value={filters.changed ?? ''} onChange={(e) => set({ changed: (e.target as HTMLSelectElement).value })}>
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
          <select value={filters.sort} onChange={(e) => set({ sort: (e.target as HTMLSelectElement).value === 'risk' ? undefined : (e.target as HTMLSelectElement).value })}>
            {SORTS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Rows
          <select value={String(filters.limit)} onChange={(e) => set({ limit: (e.target as HTMLSelectElement).value })}>
            {[50, 100, 200, 500].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {hasSample && (
          <label class="check">
            <input type="checkbox" checked={filters.include_sample ?? sampleShown} onChange={(e) => set({ include_sample: String((e.target as HTMLInputElement).checked) })} />
            Show sample data
          </label>
        )}
      </form>

      <div class="toolbar" role="toolbar" aria-label="Spreadsheet">
        <ExportButtons query={exportQuery(filters, sampleShown)} onStatus={setStatus} onError={setError} />
        {canReview && (
          <button type="button" onClick={() => setUploading(true)}>
            Upload decisions…
          </button>
        )}
      </div>
      {uploading && (
        <UploadDecisionsDialog
          onClose={() => setUploading(false)}
          onApplied={(r) => {
            setUploading(false);
            setStatus(`Applied the file: ${r.confirmed} confirmed, ${r.deferred} deferred, ${r.ignored} rows without an action left alone.`);
            setReloads((n) => n + 1);
          }}
        />
      )}
      {canReview && (
        <div class="toolbar" role="toolbar" aria-label="Selection">
          <span data-testid="selected-count">{selectedShown.length} selected</span>
          <button type="button" onClick={() => setSelected(new Set(onScreen(rows?.map((r) => r.id) ?? [])))} disabled={!rows?.length || stale}>
            Select page
          </button>
          <button type="button" onClick={() => setSelected(new Set())} disabled={selected.size === 0}>
            Clear
          </button>
          <button type="button" class="primary" data-testid="batch-confirm" disabled={selectedShown.length === 0 || locked} onClick={() => void confirmMany(selectedShown)}>
            Confirm selected
          </button>
          <button type="button" disabled={selectedShown.length === 0 || locked} onClick={() => setModal({ kind: 'confirm-as', ids: selectedShown })}>
            Confirm selected as…
          </button>
          <button type="button" disabled={selectedShown.length === 0 || locked} onClick={() => setModal({ kind: 'defer', ids: selectedShown })}>
            Defer selected…
          </button>
        </div>
      )}
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {metricsError ? (
        <div class="notice info" role="note">
          Minibars are not shown: {explain(metricsError).summary}
        </div>
      ) : null}

      {rows === null && !error && <p aria-busy="true">Loading…</p>}
      {rows?.length === 0 && !stale && (
        <p class="empty">
          {filters.changed ? 'No field matching these filters was created, changed or re-classified by the last scan of its data source.' : 'No fields match these filters.'}
        </p>
      )}
      {rows?.length === 0 && stale && <p aria-busy="true">Loading…</p>}
      {rows && rows.length > 0 && !metricsError && (
        <p class="muted legend" data-testid="bars-legend">
          Axes: six bars, left to right {AXES.map((a) => AXIS_LABELS[a].toLowerCase()).join(', ')}. A tall bar: the field looks like the fields that carry its
          classification on that signal; a short one: like the fields that do not. The tick is this page's average. Bars turn amber or red only on fields
          rated medium or high.
        </p>
      )}
      {rows && rows.length > 0 && (
        <div
          class={`${canReview ? 'queue review' : 'queue readonly'}${stale ? ' stale' : ''}`}
          role="grid"
          aria-label="Fields to review"
          aria-rowcount={rows.length + 1}
          aria-readonly={!canReview}
          aria-busy={stale}
          data-list={list?.seq}
        >
          <div role="rowgroup">
            <div role="row" class="row head" aria-rowindex={1}>
              {canReview && <div role="columnheader" class="c-sel"><span class="sr-only">Selected</span></div>}
              <div role="columnheader" class="c-field">Field</div>
              <div role="columnheader" class="c-class">Classification</div>
              <div role="columnheader" class="c-axes">Axes</div>
              <div role="columnheader" class="c-num">Outlier</div>
              <div role="columnheader" class="c-sev">Severity</div>
              <div role="columnheader" class="c-sug">Suggested</div>
              <div role="columnheader" class="c-reason">Reason</div>
              <div role="columnheader" class="c-status">Status</div>
              {canReview && <div role="columnheader" class="c-decide">Decide</div>}
            </div>
          </div>
          {/* Keyed by the load: a new list gets a new window, from its top, never the old list's range. */}
          <WindowedRows key={list?.seq} bodyRef={table} count={rows.length} active={active} focusRequest={focusRequest} onClick={onRowsClick}>
            {(i) => {
              const f = rows[i] as FieldItem;
              return (
                <Row
                  key={f.id}
                  index={i}
                  field={f}
                  metric={metrics.get(f.id)}
                  baseline={baseline}
                  suggestion={suggestionOf(f)}
                  rescoring={rescoring.has(f.id)}
                  showChange={filters.changed === 'last_scan'}
                  where={`${dsName.get(f.datasource_id) ?? 'data source'} · ${f.table_name} · ${f.field_name}`}
                  active={i === active}
                  selected={selected.has(f.id)}
                  canReview={canReview}
                />
              );
            }}
          </WindowedRows>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {filters.cursor && (
          <button type="button" onClick={() => set({ cursor: undefined })}>
            First page
          </button>
        )}
        {nextCursor && !stale && (
          <button type="button" onClick={() => set({ cursor: nextCursor })}>
            Next page
          </button>
        )}
      </nav>

      {modal?.kind === 'keys' && <KeysDialog canReview={canReview} onClose={() => setModal(null)} />}
      {modal?.kind === 'defer' && (
        <DeferDialog
          count={modal.ids.length}
          onClose={() => setModal(null)}
          onDefer={(reason) => {
            setModal(null);
            void deferMany(modal.ids, reason);
          }}
        />
      )}
      {modal?.kind === 'confirm-as' && (
        <ConfirmAsDialog
          count={modal.ids.length}
          levels={levels}
          onClose={() => setModal(null)}
          onConfirm={(body) => {
            setModal(null);
            if (modal.ids.length === 1) {
              const field = rows?.find((r) => r.id === modal.ids[0]);
              if (field) void confirmOne(field, body);
            } else void confirmMany(modal.ids, body);
          }}
        />
      )}
    </section>
  );
}

/** What each key does, opened with `?`. */
function KeysDialog({ canReview, onClose }: { canReview: boolean; onClose: () => void }) {
  const keys: Array<[string, string]> = [
    ['j', 'next row'],
    ['k', 'previous row'],
    ['Enter', 'open the current row'],
    ...(canReview
      ? ([
          ['c', 'confirm the current row (keeps its tag, locks its level)'],
          ['a', 'accept the current row’s suggestion'],
          ['d', 'defer the current row (asks for a reason)'],
          ['x', 'tick or untick the current row'],
        ] as Array<[string, string]>)
      : []),
    ['?', 'this list'],
    ['Esc', 'close a dialog'],
  ];
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <p class="muted">When the focus is not in a form field.</p>
      <dl class="keys">
        {keys.map(([k, what]) => (
          <div key={k}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div class="buttons">
        <button type="button" class="primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Dialog>
  );
}

const CHANGE_LABELS: Record<NonNullable<FieldItem['scan_change']>, string> = { new: 'new', changed: 'changed', reclassified: 're-classified' };

/** Height of a queue row in pixels: fixed (styles.css, `.queue .body .row`), so a row's place is its index times this. */
const ROW_HEIGHT = 60;
/** Rows drawn beyond each edge of the viewport, so a scroll or a run of j/k rarely shows an empty stretch. */
const OVERSCAN = 10;

/** The rows [start, end) that the viewport shows, plus the overscan, for a body whose first row is at `top` (viewport y). */
function rowsInView(top: number, count: number): [number, number] {
  const first = Math.floor(Math.max(0, -top) / ROW_HEIGHT);
  const last = Math.ceil(Math.max(0, window.innerHeight - top) / ROW_HEIGHT);
  return [Math.max(0, Math.min(count, first - OVERSCAN)), Math.max(0, Math.min(count, last + OVERSCAN))];
}

/**
 * The queue's body, windowed: only the rows in the viewport (plus a margin) are in the DOM; padding above and below
 * stands in for the others, so the page scrolls as if all were there. Creating ~40 elements a row was what a 500-row
 * page cost; now a page costs what a screenful costs. Screen readers still get the whole page's size and each row's
 * place (aria-rowcount on the grid, aria-rowindex on each row). The current row (j/k) is scrolled into view and kept
 * in the window, and keeps the focus when the focus was in the grid.
 */
function WindowedRows({
  bodyRef,
  count,
  active,
  focusRequest,
  onClick,
  children,
}: {
  bodyRef: RefObject<HTMLDivElement | null>;
  count: number;
  active: number;
  focusRequest: { current: boolean };
  onClick: (event: MouseEvent) => void;
  children: (index: number) => ComponentChild;
}) {
  // Before the body is laid out: the first screenful (the queue opens at the top of its list).
  const [range, setRange] = useState<[number, number]>(() => rowsInView(0, count));
  const rangeRef = useRef(range);
  const update = () => {
    const el = bodyRef.current;
    if (!el) return;
    const next = rowsInView(el.getBoundingClientRect().top, count);
    if (next[0] !== rangeRef.current[0] || next[1] !== rangeRef.current[1]) {
      rangeRef.current = next;
      setRange(next);
    }
  };

  useLayoutEffect(() => {
    update();
    const onScroll = () => update();
    addEventListener('scroll', onScroll, { passive: true });
    addEventListener('resize', onScroll, { passive: true });
    return () => {
      removeEventListener('scroll', onScroll);
      removeEventListener('resize', onScroll);
    };
  }, [count]);

  // The current row in view, below the sticky header row, and drawn, before the browser paints.
  useLayoutEffect(() => {
    const el = bodyRef.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top + active * ROW_HEIGHT;
    const header = (el.previousElementSibling as HTMLElement | null)?.offsetHeight ?? 0;
    // Rounded outwards: the page scrolls by whole pixels, and the row may start at a fraction of one.
    if (top < header) window.scrollBy(0, Math.floor(top - header));
    else if (top + ROW_HEIGHT > window.innerHeight) window.scrollBy(0, Math.ceil(top + ROW_HEIGHT - window.innerHeight));
    update();
  }, [active]);

  useEffect(() => {
    const el = bodyRef.current;
    const row = el?.querySelector<HTMLDivElement>(`[data-index="${active}"]`);
    if (!row) return;
    // j/k move the focus with the current row; a click in the grid keeps it there.
    if ((focusRequest.current || el?.contains(document.activeElement)) && document.activeElement !== row) row.focus({ preventScroll: true });
    focusRequest.current = false;
  }, [active, range]);

  // Never past the end of the list: the range is from the last scroll, the count from this render.
  const start = Math.min(range[0], count);
  const end = Math.min(range[1], count);
  const drawn: ComponentChild[] = [];
  for (let i = start; i < end; i++) drawn.push(children(i));
  return (
    <div role="rowgroup" class="body" ref={bodyRef} onClick={onClick} data-window={`${start}-${end}`} style={{ paddingTop: `${start * ROW_HEIGHT}px`, paddingBottom: `${(count - end) * ROW_HEIGHT}px` }}>
      {drawn}
    </div>
  );
}

interface RowProps {
  index: number;
  field: FieldItem;
  metric: MinibarItem | undefined;
  baseline: MinibarsResponse['baseline_scores'] | undefined;
  suggestion: Suggestion | null;
  /** Confirmed on this page: the stored score, severity and minibars were for the old classification. */
  rescoring: boolean;
  /** In the changed-since-last-scan view: what the last scan did to the field. */
  showChange: boolean;
  where: string;
  active: boolean;
  selected: boolean;
  canReview: boolean;
}

/** One queue row. Re-rendered only when its own props change, so moving (j/k) or ticking one row redraws two, not 500. */
class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      p.field !== next.field ||
      p.metric !== next.metric ||
      p.baseline !== next.baseline ||
      p.active !== next.active ||
      p.selected !== next.selected ||
      p.where !== next.where ||
      p.index !== next.index ||
      p.rescoring !== next.rescoring ||
      p.showChange !== next.showChange ||
      p.canReview !== next.canReview ||
      p.suggestion?.tag_id !== next.suggestion?.tag_id ||
      p.suggestion?.level !== next.suggestion?.level
    );
  }

  override render() {
    const { index, field: f, metric: m, baseline, suggestion: s, rescoring, showChange, where, active, selected, canReview } = this.props;
    const change = showChange ? f.scan_change : null;
    const severity = rescoring ? null : (m?.severity ?? f.severity);
    const score = rescoring ? null : (m?.outlier_score ?? f.outlier_score);
    return (
      <div role="row" aria-rowindex={index + 2} data-index={index} data-field-id={f.id} tabIndex={-1} class={active ? 'row active' : 'row'}>
        {canReview && (
          <div role="gridcell" class="c">
            <input type="checkbox" data-action="select" aria-label={`Select ${where}`} checked={selected} />
          </div>
        )}
        <div role="gridcell" class="c">
          <a href={`/fields/${f.id}`}>{where}</a>
        </div>
        <div role="gridcell" class="c">
          <span class="path">{f.classification_chain_path}</span> <span class={`level level-${f.level}`}>{f.level}</span>
          {f.lock_level && (
            <span class="lock" title="Level locked by a reviewer">
              {' '}
              <LockIcon label="locked" />
            </span>
          )}
        </div>
        <div role="gridcell" class="c">
          {rescoring ? (
            <span class="muted" title="The server recomputes the scores of a decided field in the background; reload to see them">
              re-scoring
            </span>
          ) : m ? (
            <Minibars scores={m.scores} baseline={baseline} severity={severity} />
          ) : (
            <span class="muted">–</span>
          )}
        </div>
        <div role="gridcell" class="c num">
          {score?.toFixed(2) ?? '–'}
        </div>
        <div role="gridcell" class="c">
          {severity ? <span class={`sev sev-${severity}`}>{severity}</span> : '–'}
        </div>
        <div role="gridcell" class="c">
          {s ? (
            <span class="suggestion">
              {s.chain_path} <span class={`level level-${s.level}`}>{s.level}</span> <span class="muted">{Math.round(s.confidence * 100)}%</span>
              {canReview && (
                <button type="button" class="small" data-action="accept" aria-label={`Accept suggestion for ${where}`}>
                  Accept
                </button>
              )}
            </span>
          ) : (
            <span class="muted">–</span>
          )}
        </div>
        <div role="gridcell" class="c reason" title={rescoring ? undefined : m?.reason}>
          {rescoring ? '' : (m?.reason ?? '')}
        </div>
        <div role="gridcell" class="c">
          {change && <span class={`change change-${change}`}>{CHANGE_LABELS[change]}</span>} <span class={`review review-${f.review_status}`}>{f.review_status}</span>
        </div>
        {canReview && (
          <div role="gridcell" class="c actions">
            <button type="button" class="small" data-action="confirm" aria-label={`Confirm ${where}`}>
              Confirm
            </button>
            <button type="button" class="small" data-action="change" aria-label={`Change the tag or level of ${where}`}>
              Change…
            </button>
            <button type="button" class="small" data-action="defer" aria-label={`Defer ${where}`}>
              Defer
            </button>
          </div>
        )}
      </div>
    );
  }
}
