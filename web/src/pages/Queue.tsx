/**
 * The review queue: fields in risk order (sort=risk when the server offers it, else outlier score), six minibars per
 * row against the page's baseline, one-key decisions (j/k move, c confirm, d defer, x select, a accept a suggestion),
 * multi-select and batch confirm, confirm as another tag or level, defer with a reason.
 */
import { Component, type ComponentChild, type RefObject } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, extras, ok, serverCapabilities, type Datasource, type FieldItem, type Level, type MinibarItem, type MinibarsResponse, type Suggestion, type Tag } from '../api/client';
import { session } from '../api/session';
import { Dialog } from '../components/Dialog';
import { Minibars } from '../components/Minibars';
import { ProblemNotice, explain } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { TagPicker } from '../components/TagPicker';
import { loadDatasources, loadLevels, loadTags } from '../data';
import { navigate, useLocation } from '../router';

type ReviewStatus = 'unreviewed' | 'confirmed' | 'deferred';
type Severity = 'low' | 'medium' | 'high';

interface Filters {
  datasource_id?: string;
  severity?: Severity;
  level?: string;
  tag_id?: number;
  review_status?: ReviewStatus;
  q?: string;
  limit: number;
  cursor?: string;
}

function filtersOf(query: URLSearchParams): Filters {
  const s = (k: string) => query.get(k) || undefined;
  const tag = Number(query.get('tag_id'));
  const limit = Number(query.get('limit'));
  const status = query.get('review_status');
  return {
    datasource_id: s('datasource_id'),
    severity: s('severity') as Severity | undefined,
    level: s('level'),
    tag_id: Number.isInteger(tag) && tag > 0 ? tag : undefined,
    // The queue opens on what still needs a decision; "any" shows everything.
    review_status: status === 'any' ? undefined : ((status || 'unreviewed') as ReviewStatus),
    q: s('q'),
    limit: [50, 100, 200, 500].includes(limit) ? limit : 100,
    cursor: s('cursor'),
  };
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

type Modal = { kind: 'defer'; ids: string[] } | { kind: 'confirm-as'; ids: string[] } | null;

export function QueuePage() {
  const { query } = useLocation();
  const filters = useMemo(() => filtersOf(query), [query.toString()]);
  const canReview = session.can('field:review');
  const [rows, setRows] = useState<FieldItem[] | null>(null);
  const [metrics, setMetrics] = useState<Map<string, MinibarItem>>(new Map());
  const [baseline, setBaseline] = useState<MinibarsResponse['baseline_scores'] | undefined>();
  const [metricsError, setMetricsError] = useState<unknown>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [active, setActive] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [modal, setModal] = useState<Modal>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const [datasources, setDatasources] = useState<Datasource[]>([]);
  const [levels, setLevels] = useState<Level[]>([]);
  const [tags, setTags] = useState<Tag[]>([]);
  const [riskSort, setRiskSort] = useState(false);
  const table = useRef<HTMLDivElement>(null);

  useEffect(() => {
    void loadDatasources().then(setDatasources, () => undefined);
    void loadLevels().then(setLevels, () => undefined);
    void loadTags().then(setTags, () => undefined);
  }, []);

  useEffect(() => {
    let cancelled = false;
    setError(null);
    void (async () => {
      try {
        const caps = await serverCapabilities();
        setRiskSort(caps.riskSort);
        const { cursor, ...rest } = filters;
        // sort=risk is the order reviewers want; until the server offers it, the outlier score is the closest.
        const sort = (caps.riskSort ? 'risk' : 'outlier_score') as 'outlier_score';
        const page = await ok(api.GET('/api/v1/fields', { params: { query: { ...rest, sort, ...(cursor ? { cursor } : {}) } } }));
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
        setRows(page.items);
        setMetrics(new Map((bars?.items ?? []).map((m) => [m.field_id, m])));
        setBaseline(bars?.baseline_scores);
        setMetricsError(barsError);
        setNextCursor(page.next_cursor);
        setActive(0);
        setSelected(new Set());
      } catch (e) {
        if (!cancelled) setError(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [filters]);

  // Render time of a page of rows, layout included: from the data's arrival to the rows laid out.
  useLayoutEffect(() => {
    if (!rows || performance.getEntriesByName('queue-render-start').length === 0) return;
    performance.mark('queue-commit');
    void table.current?.offsetHeight;
    performance.mark('queue-render-end');
    performance.measure('queue-render', 'queue-render-start', 'queue-render-end');
    performance.clearMarks('queue-render-start');
    document.body.dataset.queueRows = String(rows.length);
  }, [rows]);

  const dsName = useMemo(() => new Map(datasources.map((d) => [d.id, d.name])), [datasources]);

  const refreshRows = async (ids: string[]) => {
    const fresh = await Promise.all(ids.map((id) => ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).catch(() => undefined)));
    const byId = new Map(fresh.filter((f): f is FieldItem => f !== undefined).map((f) => [f.id, f]));
    setRows((current) => current?.map((r) => byId.get(r.id) ?? r) ?? null);
  };

  const act = async (what: string, run: () => Promise<string>, ids: string[]) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await run());
      await refreshRows(ids);
    } catch (e) {
      setError(e);
      setStatus(`${what} failed: ${explain(e).summary}`);
    } finally {
      setBusy(false);
    }
  };

  const confirmOne = (field: FieldItem, body: { classification_tag_id?: number; lock_level?: string } = {}) =>
    act(
      'Confirm',
      async () => {
        await ok(api.POST('/api/v1/classify/fields/{field_id}/confirm', { params: { path: { field_id: field.id } }, body }));
        return `Confirmed ${field.table_name}.${field.field_name}.`;
      },
      [field.id],
    );

  const confirmMany = (ids: string[], body: { classification_tag_id?: number; lock_level?: string } = {}) =>
    act(
      'Batch confirm',
      async () => {
        const result = await ok(api.POST('/api/v1/classify/fields/batch-confirm', { body: { field_ids: ids, ...body } }));
        setSelected(new Set());
        return `Confirmed ${result.confirmed.length}, skipped ${result.skipped.length}, errors ${result.errors.length}.`;
      },
      ids,
    );

  const deferMany = (ids: string[], reason: string) =>
    act(
      'Defer',
      async () => {
        for (const id of ids) await ok(api.POST('/api/v1/classify/fields/{field_id}/defer', { params: { path: { field_id: id } }, body: { reason } }));
        return `Deferred ${ids.length} field${ids.length === 1 ? '' : 's'}.`;
      },
      ids,
    );

  const suggestionOf = (field: FieldItem) => extras(field).suggested_classification ?? extras(metrics.get(field.id)).suggested_classification ?? null;

  const acceptSuggestion = (field: FieldItem) => {
    const s = suggestionOf(field);
    if (s) void confirmOne(field, { classification_tag_id: s.tag_id, lock_level: s.level });
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
    if (!rows || modal || event.metaKey || event.ctrlKey || event.altKey) return;
    const target = event.target as HTMLElement;
    if (target.closest('input, textarea, select, dialog, [contenteditable]')) return;
    const field = rows[active];
    switch (event.key) {
      case 'j':
        setActive((a) => Math.min(rows.length - 1, a + 1));
        break;
      case 'k':
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
        if (field && target.getAttribute('role') === 'row') navigate(`/fields/${field.id}`);
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
    if (!field) return;
    setActive(index);
    const action = target.closest<HTMLElement>('[data-action]')?.dataset.action;
    // Decisions wait for the one under way (the row buttons stay enabled, so a decision does not redraw every row).
    if (!action || !canReview || (busy && action !== 'select')) return;
    if (action === 'select') toggle(field.id);
    else if (action === 'confirm') void confirmOne(field);
    else if (action === 'change') setModal({ kind: 'confirm-as', ids: [field.id] });
    else if (action === 'defer') setModal({ kind: 'defer', ids: [field.id] });
    else if (action === 'accept') acceptSuggestion(field);
  };

  const set = (changes: Record<string, string | undefined>) => navigate(urlOf(query, changes));

  return (
    <section aria-labelledby="queue-title">
      <h1 id="queue-title">Review queue</h1>
      <p class="muted">
        Most suspicious first ({riskSort ? 'risk order' : 'by outlier score; risk order when the server offers it'}). Keys: <kbd>j</kbd>/<kbd>k</kbd> move,{' '}
        {canReview ? (
          <>
            <kbd>c</kbd> confirm, <kbd>d</kbd> defer, <kbd>x</kbd> select, <kbd>a</kbd> accept a suggestion,{' '}
          </>
        ) : null}
        <kbd>Enter</kbd> details.
      </p>
      {!canReview && (
        <div class="notice info" role="note" data-testid="read-only">
          Read-only: your roles do not grant <code>field:review</code>, so decisions are not offered.
        </div>
      )}
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Queue filters">
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
          Search
          <input
            type="search"
            placeholder="table or column"
            defaultValue={filters.q ?? ''}
            onKeyDown={(e) => {
              if (e.key === 'Enter') set({ q: (e.target as HTMLInputElement).value.trim() });
            }}
            onChange={(e) => set({ q: (e.target as HTMLInputElement).value.trim() })}
          />
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
      </form>

      {canReview && (
        <div class="toolbar" role="toolbar" aria-label="Selection">
          <span>{selected.size} selected</span>
          <button type="button" onClick={() => setSelected(new Set(rows?.map((r) => r.id) ?? []))} disabled={!rows?.length}>
            Select page
          </button>
          <button type="button" onClick={() => setSelected(new Set())} disabled={selected.size === 0}>
            Clear
          </button>
          <button type="button" class="primary" data-testid="batch-confirm" disabled={selected.size === 0 || busy} onClick={() => void confirmMany([...selected])}>
            Confirm selected
          </button>
          <button type="button" disabled={selected.size === 0 || busy} onClick={() => setModal({ kind: 'confirm-as', ids: [...selected] })}>
            Confirm selected as…
          </button>
          <button type="button" disabled={selected.size === 0 || busy} onClick={() => setModal({ kind: 'defer', ids: [...selected] })}>
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
      {rows?.length === 0 && <p class="empty">No fields match these filters.</p>}
      {rows && rows.length > 0 && (
        <div class={canReview ? 'queue review' : 'queue readonly'} role="grid" aria-label="Fields to review" aria-rowcount={rows.length + 1} aria-readonly={!canReview}>
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
          <WindowedRows bodyRef={table} count={rows.length} active={active} onClick={onRowsClick}>
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
        {nextCursor && (
          <button type="button" onClick={() => set({ cursor: nextCursor })}>
            Next page
          </button>
        )}
      </nav>

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

function DeferDialog({ count, onClose, onDefer }: { count: number; onClose: () => void; onDefer: (reason: string) => void }) {
  const [reason, setReason] = useState('');
  return (
    <Dialog title={count === 1 ? 'Defer this field' : `Defer ${count} fields`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) onDefer(reason.trim());
        }}
      >
        <label for="defer-reason">Reason (required)</label>
        <textarea id="defer-reason" required maxLength={2000} rows={3} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} autoFocus />
        <div class="buttons">
          <button type="submit" class="primary" disabled={!reason.trim()}>
            Defer
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ConfirmAsDialog({ count, levels, onClose, onConfirm }: { count: number; levels: Level[]; onClose: () => void; onConfirm: (body: { classification_tag_id?: number; lock_level?: string }) => void }) {
  const [tag, setTag] = useState<Tag | null>(null);
  const [level, setLevel] = useState('');
  return (
    <Dialog title={count === 1 ? 'Confirm with another tag or level' : `Confirm ${count} fields with another tag or level`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm({ ...(tag ? { classification_tag_id: tag.id } : {}), ...(level ? { lock_level: level } : {}) });
        }}
      >
        <TagPicker
          label="Tag (leave empty to keep the current one)"
          value={tag}
          onChange={(t) => {
            setTag(t);
            // A new tag usually brings its own level; the reviewer can still keep the current one.
            if (t) setLevel(t.default_level);
          }}
          autoFocus
        />
        <label for="confirm-level">Level</label>
        <select id="confirm-level" value={level} onChange={(e) => setLevel((e.target as HTMLSelectElement).value)}>
          <option value="">Keep the current level</option>
          {levels.map((l) => (
            <option key={l.code} value={l.code}>
              {l.code} {l.name}
            </option>
          ))}
        </select>
        <div class="buttons">
          <button type="submit" class="primary">
            Confirm
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

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
function WindowedRows({ bodyRef, count, active, onClick, children }: { bodyRef: RefObject<HTMLDivElement | null>; count: number; active: number; onClick: (event: MouseEvent) => void; children: (index: number) => ComponentChild }) {
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
    if (row && el?.contains(document.activeElement) && document.activeElement !== row) row.focus({ preventScroll: true });
  }, [active, range]);

  const [start, end] = range;
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
      p.canReview !== next.canReview ||
      p.suggestion?.tag_id !== next.suggestion?.tag_id ||
      p.suggestion?.level !== next.suggestion?.level
    );
  }

  override render() {
    const { index, field: f, metric: m, baseline, suggestion: s, where, active, selected, canReview } = this.props;
    const severity = m?.severity ?? f.severity;
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
          {f.lock_level && <span class="lock" title="Level locked by a reviewer"> 🔒</span>}
        </div>
        <div role="gridcell" class="c">
          {m ? <Minibars scores={m.scores} baseline={baseline} /> : <span class="muted">–</span>}
        </div>
        <div role="gridcell" class="c num">
          {(m?.outlier_score ?? f.outlier_score)?.toFixed(2) ?? '–'}
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
        <div role="gridcell" class="c reason" title={m?.reason}>
          {m?.reason ?? ''}
        </div>
        <div role="gridcell" class="c">
          <span class={`review review-${f.review_status}`}>{f.review_status}</span>
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
