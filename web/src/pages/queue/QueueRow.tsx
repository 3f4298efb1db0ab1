/** One row of the queue's grid: a field, its scores and minibars, its suggestion, and a reviewer's buttons. */
import { Component } from 'preact';
import type { FieldItem, MinibarItem, MinibarsResponse, Suggestion } from '../../api/client';
import { LockIcon } from '../../components/icons';
import { Minibars } from '../../components/Minibars';

const CHANGE_LABELS: Record<NonNullable<FieldItem['scan_change']>, string> = {
  new: 'new',
  changed: 'changed',
  reclassified: 're-classified',
};

export interface RowProps {
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
export class Row extends Component<RowProps> {
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
    const {
      index,
      field: f,
      metric: m,
      baseline,
      suggestion: s,
      rescoring,
      showChange,
      where,
      active,
      selected,
      canReview,
    } = this.props;
    const change = showChange ? f.scan_change : null;
    const severity = rescoring ? null : (m?.severity ?? f.severity);
    const score = rescoring ? null : (m?.outlier_score ?? f.outlier_score);
    return (
      <div
        role="row"
        aria-rowindex={index + 2}
        data-index={index}
        data-field-id={f.id}
        tabIndex={-1}
        class={active ? 'row active' : 'row'}
      >
        {canReview && (
          <div role="gridcell" class="c">
            <input type="checkbox" data-action="select" aria-label={`Select ${where}`} checked={selected} />
          </div>
        )}
        <div role="gridcell" class="c">
          <a href={`/fields/${f.id}`}>{where}</a>
        </div>
        <div role="gridcell" class="c">
          <span class="path">{f.classification_chain_path}</span>{' '}
          <span class={`level level-${f.level}`}>{f.level}</span>
          {f.lock_level && (
            <span class="lock" title="Level locked by a reviewer">
              {' '}
              <LockIcon label="locked" />
            </span>
          )}
        </div>
        <div role="gridcell" class="c">
          <RowBars rescoring={rescoring} metric={m} baseline={baseline} severity={severity} />
        </div>
        <div role="gridcell" class="c num">
          {score?.toFixed(2) ?? '–'}
        </div>
        <div role="gridcell" class="c">
          {severity ? <span class={`sev sev-${severity}`}>{severity}</span> : '–'}
        </div>
        <div role="gridcell" class="c">
          <RowSuggestion suggestion={s} canReview={canReview} where={where} />
        </div>
        <div role="gridcell" class="c reason" title={rescoring ? undefined : m?.reason}>
          {rescoring ? '' : (m?.reason ?? '')}
        </div>
        <div role="gridcell" class="c">
          {change && <span class={`change change-${change}`}>{CHANGE_LABELS[change]}</span>}{' '}
          <span class={`review review-${f.review_status}`}>{f.review_status}</span>
        </div>
        {canReview && <RowActions where={where} />}
      </div>
    );
  }
}

/** The six minibars, or why they are not shown. */
function RowBars({
  rescoring,
  metric,
  baseline,
  severity,
}: {
  rescoring: boolean;
  metric: RowProps['metric'];
  baseline: RowProps['baseline'];
  severity: FieldItem['severity'];
}) {
  return rescoring ? (
    <span
      class="muted"
      title="The server recomputes the scores of a decided field in the background; reload to see them"
    >
      re-scoring
    </span>
  ) : metric ? (
    <Minibars scores={metric.scores} baseline={baseline} severity={severity} />
  ) : (
    <span class="muted">–</span>
  );
}

function RowSuggestion({
  suggestion,
  canReview,
  where,
}: {
  suggestion: RowProps['suggestion'];
  canReview: boolean;
  where: string;
}) {
  return suggestion ? (
    <span class="suggestion">
      {suggestion.chain_path} <span class={`level level-${suggestion.level}`}>{suggestion.level}</span>{' '}
      <span class="muted">{Math.round(suggestion.confidence * 100)}%</span>
      {canReview && (
        <button type="button" class="small" data-action="accept" aria-label={`Accept suggestion for ${where}`}>
          Accept
        </button>
      )}
    </span>
  ) : (
    <span class="muted">–</span>
  );
}

/** The row's decision buttons; the grid's one click listener finds them by data-action. */
function RowActions({ where }: { where: string }) {
  return (
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
  );
}
