/** The queue's grid: a header row and the windowed rows of the list, one click listener for every row's controls. */
import type { RefObject } from 'preact';
import type { FieldItem, MinibarItem, MinibarsResponse, Suggestion } from '../../api/client';
import { Row } from './QueueRow';
import { WindowedRows } from './WindowedRows';

export interface QueueGridProps {
  rows: FieldItem[];
  /** The load the rows came from: a new list gets a new window, from its top. */
  seq: number;
  stale: boolean;
  canReview: boolean;
  bodyRef: RefObject<HTMLDivElement | null>;
  active: number;
  focusRequest: { current: boolean };
  onClick: (event: MouseEvent) => void;
  metrics: ReadonlyMap<string, MinibarItem>;
  baseline: MinibarsResponse['baseline_scores'] | undefined;
  suggestionOf: (field: FieldItem) => Suggestion | null;
  rescoring: ReadonlySet<string>;
  selected: ReadonlySet<string>;
  /** In the changed-since-last-scan view: each row says what the last scan did to its field. */
  showChange: boolean;
  datasourceName: ReadonlyMap<string, string>;
}

export function QueueGrid(props: QueueGridProps) {
  const {
    rows,
    seq,
    stale,
    canReview,
    bodyRef,
    active,
    focusRequest,
    onClick,
    metrics,
    baseline,
    suggestionOf,
    rescoring,
    selected,
    showChange,
    datasourceName,
  } = props;
  return (
    <div
      class={`${canReview ? 'queue review' : 'queue readonly'}${stale ? ' stale' : ''}`}
      role="grid"
      aria-label="Fields to review"
      aria-rowcount={rows.length + 1}
      aria-readonly={!canReview}
      aria-busy={stale}
      data-list={seq}
    >
      <div role="rowgroup">
        <div role="row" class="row head" aria-rowindex={1}>
          {canReview && (
            <div role="columnheader" class="c-sel">
              <span class="sr-only">Selected</span>
            </div>
          )}
          <div role="columnheader" class="c-field">
            Field
          </div>
          <div role="columnheader" class="c-class">
            Classification
          </div>
          <div role="columnheader" class="c-axes">
            Axes
          </div>
          <div role="columnheader" class="c-num">
            Outlier
          </div>
          <div role="columnheader" class="c-sev">
            Severity
          </div>
          <div role="columnheader" class="c-sug">
            Suggested
          </div>
          <div role="columnheader" class="c-reason">
            Reason
          </div>
          <div role="columnheader" class="c-status">
            Status
          </div>
          {canReview && (
            <div role="columnheader" class="c-decide">
              Decide
            </div>
          )}
        </div>
      </div>
      {/* Keyed by the load: a new list gets a new window, from its top, never the old list's range. */}
      <WindowedRows
        key={seq}
        bodyRef={bodyRef}
        count={rows.length}
        active={active}
        focusRequest={focusRequest}
        onClick={onClick}
      >
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
              showChange={showChange}
              where={`${datasourceName.get(f.datasource_id) ?? 'data source'} · ${f.table_name} · ${f.field_name}`}
              active={i === active}
              selected={selected.has(f.id)}
              canReview={canReview}
            />
          );
        }}
      </WindowedRows>
    </div>
  );
}
