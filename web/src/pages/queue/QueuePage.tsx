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
 *
 * The parts: the address's filters (use-queue-filters), the list (use-queue-list), the ticks (use-selection), the
 * decisions (use-decisions), the current row and keys (use-queue-keys); the form, toolbars, grid and dialogs beside them.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { session } from '../../api/session';
import { AXES, AXIS_LABELS } from '../../components/Minibars';
import { ProblemNotice, explain } from '../../components/ProblemNotice';
import { StatusLine } from '../../components/Status';
import type { FieldItem } from '../../api/client';
import { exportQuery, type Sort } from './filters';
import { QueueDialogs, type Modal } from './QueueDialogs';
import { QueueFilters } from './QueueFilters';
import { QueueGrid } from './QueueGrid';
import { SelectionBar, SpreadsheetBar } from './QueueToolbars';
import { useDecisions, type Decisions } from './use-decisions';
import { useFilterChoices, useQueueFilters } from './use-queue-filters';
import { useQueueKeys } from './use-queue-keys';
import { useQueueList, useRenderTiming } from './use-queue-list';
import { useSelection, type Selection } from './use-selection';

/** The page's state: the address's filters, the list, the ticks, the decisions, the current row and keys, the dialog. */
function useQueuePage() {
  const canReview = session.can('field:review');
  const { query, filtersKey, filters, set, searchText, search, searchInput } = useQueueFilters();
  const choices = useFilterChoices();
  const [modal, setModal] = useState<Modal>(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const table = useRef<HTMLDivElement>(null);

  const list = useQueueList(filters, filtersKey, {
    onError: setError,
    onLoaded: (shown) => {
      keys.setActive(0);
      decisions.forgetRescoring();
      selection.keepOnly(shown);
    },
  });
  const { rows, stale } = list;
  const selection = useSelection(rows);
  const decisions = useDecisions(list, { onStatus: setStatus, onError: setError, clearSelection: selection.clear });
  const locked = decisions.busy || stale;
  const keys = useQueueKeys({
    modalOpen: modal !== null,
    rows,
    stale,
    canReview,
    busy: decisions.busy,
    toggle: selection.toggle,
    confirm: (field) => void decisions.confirmOne(field),
    accept: decisions.acceptSuggestion,
    defer: (field) => setModal({ kind: 'defer', ids: [field.id] }),
    showKeys: () => setModal({ kind: 'keys' }),
  });
  useRenderTiming(list.list, table);

  const dsName = useMemo(() => new Map(choices.datasources.map((d) => [d.id, d.name])), [choices.datasources]);

  const onRowsClick = rowsClickHandler({ rows, stale, canReview, keys, selection, decisions, setModal });
  return {
    canReview,
    query,
    filters,
    set,
    searchText,
    search,
    searchInput,
    choices,
    modal,
    setModal,
    status,
    setStatus,
    error,
    setError,
    table,
    list,
    rows,
    stale,
    selection,
    decisions,
    locked,
    keys,
    dsName,
    onRowsClick,
  };
}

export function QueuePage() {
  const { canReview, filters, set, list, rows, stale, selection, decisions, keys, ...page } = useQueuePage();
  return (
    <section aria-labelledby="queue-title">
      <h1 id="queue-title">Review queue</h1>
      <QueueIntro sort={filters.sort} riskSort={list.riskSort} canReview={canReview} />
      <QueueFilters
        filters={filters}
        query={page.query}
        choices={page.choices}
        hasSample={list.hasSample}
        sampleShown={list.sampleShown}
        searchText={page.searchText}
        searchInput={page.searchInput}
        search={page.search}
        set={set}
      />
      <SpreadsheetBar
        exportQuery={exportQuery(filters, list.sampleShown)}
        canReview={canReview}
        onStatus={page.setStatus}
        onError={page.setError}
        onApplied={list.reload}
      />
      {canReview && (
        <SelectionBar
          selectedShown={selection.selectedShown}
          anySelected={selection.selected.size > 0}
          canSelectPage={!!rows?.length && !stale}
          locked={page.locked}
          onSelectPage={() => selection.select(list.onScreen(rows?.map((r) => r.id) ?? []))}
          onClear={selection.clear}
          onConfirm={(ids) => void decisions.confirmMany(ids)}
          onConfirmAs={(ids) => page.setModal({ kind: 'confirm-as', ids })}
          onDefer={(ids) => page.setModal({ kind: 'defer', ids })}
        />
      )}
      <StatusLine message={page.status} />
      <ProblemNotice error={page.error} />
      <ListNotes
        rows={rows}
        stale={stale}
        error={page.error}
        metricsError={list.metricsError}
        changed={!!filters.changed}
      />
      {rows && rows.length > 0 && list.list && (
        <QueueGrid
          rows={rows}
          seq={list.list.seq}
          stale={stale}
          canReview={canReview}
          bodyRef={page.table}
          active={keys.active}
          focusRequest={keys.focusRequest}
          onClick={page.onRowsClick}
          metrics={list.metrics}
          baseline={list.baseline}
          suggestionOf={decisions.suggestionOf}
          rescoring={decisions.rescoring}
          selected={selection.selected}
          showChange={filters.changed === 'last_scan'}
          datasourceName={page.dsName}
        />
      )}
      <QueuePager
        cursor={filters.cursor}
        nextCursor={list.nextCursor}
        stale={stale}
        onFirst={() => set({ cursor: undefined })}
        onNext={() => set({ cursor: list.nextCursor ?? undefined })}
      />

      <QueueDialogs
        modal={page.modal}
        canReview={canReview}
        levels={page.choices.levels}
        onClose={() => page.setModal(null)}
        onDefer={(ids, reason) => void decisions.deferMany(ids, reason)}
        onConfirm={(ids, body) => {
          if (ids.length === 1) {
            const field = rows?.find((r) => r.id === ids[0]);
            if (field) void decisions.confirmOne(field, body);
          } else void decisions.confirmMany(ids, body);
        }}
      />
    </section>
  );
}

/** One listener for every row's controls (a 500-row page would otherwise attach 2,500), found by data-action. */
function rowsClickHandler({
  rows,
  stale,
  canReview,
  keys,
  selection,
  decisions,
  setModal,
}: {
  rows: readonly FieldItem[] | null;
  stale: boolean;
  canReview: boolean;
  keys: Pick<ReturnType<typeof useQueueKeys>, 'setActive'>;
  selection: Selection;
  decisions: Decisions;
  setModal: (modal: Modal) => void;
}) {
  return (event: MouseEvent) => {
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
    keys.setActive(index);
    // Decisions wait for the one under way (the row buttons stay enabled, so a decision does not redraw every row).
    if (!action || !canReview || (decisions.busy && action !== 'select')) {
      if (action === 'select' && !canReview) event.preventDefault();
      return;
    }
    if (action === 'select') selection.toggle(field.id);
    else if (action === 'confirm') void decisions.confirmOne(field);
    else if (action === 'change') setModal({ kind: 'confirm-as', ids: [field.id] });
    else if (action === 'defer') setModal({ kind: 'defer', ids: [field.id] });
    else if (action === 'accept') decisions.acceptSuggestion(field);
  };
}

/** The order and keys in use, and the read-only note for a caller who cannot review. */
function QueueIntro({ sort, riskSort, canReview }: { sort: Sort; riskSort: boolean; canReview: boolean }) {
  return (
    <>
      <p class="muted">
        {sort === 'risk'
          ? `Most suspicious first (${riskSort ? 'risk order' : 'by outlier score; risk order when the server offers it'}).`
          : sort === 'updated_at'
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
    </>
  );
}

/** What the list area says besides the grid: minibars missing, loading, empty, the bars' legend. */
function ListNotes({
  rows,
  stale,
  error,
  metricsError,
  changed,
}: {
  rows: readonly FieldItem[] | null;
  stale: boolean;
  error: unknown;
  metricsError: unknown;
  changed: boolean;
}) {
  return (
    <>
      {metricsError ? (
        <div class="notice info" role="note">
          Minibars are not shown: {explain(metricsError).summary}
        </div>
      ) : null}

      {rows === null && !error && <p aria-busy="true">Loading…</p>}
      {rows?.length === 0 && !stale && (
        <p class="empty">
          {changed
            ? 'No field matching these filters was created, changed or re-classified by the last scan of its data source.'
            : 'No fields match these filters.'}
        </p>
      )}
      {rows?.length === 0 && stale && <p aria-busy="true">Loading…</p>}
      {rows && rows.length > 0 && !metricsError && (
        <p class="muted legend" data-testid="bars-legend">
          Axes: six bars, left to right {AXES.map((a) => AXIS_LABELS[a].toLowerCase()).join(', ')}. A tall bar: the
          field looks like the fields that carry its classification on that signal; a short one: like the fields that do
          not. The tick is this page's average. Bars turn amber or red only on fields rated medium or high.
        </p>
      )}
    </>
  );
}

function QueuePager({
  cursor,
  nextCursor,
  stale,
  onFirst,
  onNext,
}: {
  cursor: string | undefined;
  nextCursor: string | null;
  stale: boolean;
  onFirst: () => void;
  onNext: () => void;
}) {
  return (
    <nav class="pager" aria-label="Pages">
      {cursor && (
        <button type="button" onClick={onFirst}>
          First page
        </button>
      )}
      {nextCursor && !stale && (
        <button type="button" onClick={onNext}>
          Next page
        </button>
      )}
    </nav>
  );
}
