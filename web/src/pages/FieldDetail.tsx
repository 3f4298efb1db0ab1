/**
 * One field: the decisions a reviewer takes on it (confirm, change, defer, accept the suggestion), every axis with its
 * score and raw value, the nearest neighbour, the evidence that chose its classification and what the runners-up
 * had, and its decision history.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, extras, ok, type AuditEntry, type FieldItem, type Level, type MinibarItem } from '../api/client';
import { session } from '../api/session';
import { FieldDecisions } from '../components/decisions';
import {
  AXES,
  AXIS_LABELS,
  Minibars,
  POOR_FIT,
  WEAK_FIT,
  fitOf,
  lowAxisPhrase,
  type UnusualLevel,
} from '../components/Minibars';
import { NoPermission, ProblemNotice, explain } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources, loadLevels } from '../data';

/** How long the page waits for the metrics after a decision before it stops asking (a busy catalog may take longer). */
const RECOMPUTE_WAIT_MS = 30_000;

/**
 * The field, its metrics and its history, read again whenever `version` changes (after each decision), and the
 * decision's outcome, which a new field starts without.
 */
function useFieldDetail(id: string, canAudit: boolean) {
  const [field, setField] = useState<FieldItem | null>(null);
  const [metric, setMetric] = useState<MinibarItem | null>(null);
  const [metricError, setMetricError] = useState<unknown>(null);
  const [history, setHistory] = useState<AuditEntry[] | null>(null);
  const [historyError, setHistoryError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [dsName, setDsName] = useState('');
  const [levels, setLevels] = useState<Level[]>([]);
  const [status, setStatus] = useState('');
  const [decisionError, setDecisionError] = useState<unknown>(null);
  // Bumped after each decision: the page reads the field, its metrics and its history again to show the new state.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    void loadLevels().then(setLevels, () => undefined);
  }, []);

  // A new field starts clean; after a decision the page keeps what it shows until the fresh state arrives.
  useEffect(() => {
    setField(null);
    setMetric(null);
    setHistory(null);
    setStatus('');
    setDecisionError(null);
  }, [id]);

  useEffect(() => {
    setError(null);
    void ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).then(async (f) => {
      setField(f);
      const sources = await loadDatasources().catch(() => []);
      setDsName(sources.find((d) => d.id === f.datasource_id)?.name ?? '');
    }, setError);
    void ok(api.POST('/api/v1/classify/fields/embedding-minibars', { body: { field_ids: [id] } })).then(
      (r) => setMetric(r.items[0] ?? null),
      setMetricError,
    );
    if (canAudit)
      void ok(api.GET('/api/v1/audit-logs', { params: { query: { target_id: id, limit: 100 } } })).then(
        (r) => setHistory(r.items),
        setHistoryError,
      );
  }, [id, version]);

  const recomputing = useRecomputing(id, version, setField, setMetric);
  return {
    field,
    metric,
    metricError,
    history,
    historyError,
    error,
    dsName,
    levels,
    status,
    setStatus,
    decisionError,
    setDecisionError,
    decided: () => setVersion((v) => v + 1),
    recomputing,
  };
}

/**
 * After a decision the metrics are recomputed in the background: until none is pending the page says so, then it
 * reads the field and its metrics once more (new score, severity, reason; a confirmed field's suggestion gone).
 */
function useRecomputing(
  id: string,
  version: number,
  setField: (field: FieldItem) => void,
  setMetric: (metric: MinibarItem | null) => void,
): boolean {
  const [recomputing, setRecomputing] = useState(false);
  useEffect(() => {
    if (version === 0) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    setRecomputing(true);
    const poll = async () => {
      const status = await ok(api.GET('/api/v1/classify/metrics/status')).catch(() => null);
      if (stopped) return;
      if (status && status.pending === 0) {
        const [f, bars] = await Promise.all([
          ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).catch(() => null),
          ok(api.POST('/api/v1/classify/fields/embedding-minibars', { body: { field_ids: [id] } })).catch(() => null),
        ]);
        if (stopped) return;
        if (f) setField(f);
        if (bars) setMetric(bars.items[0] ?? null);
        setRecomputing(false);
      } else if (Date.now() - started < RECOMPUTE_WAIT_MS) {
        timer = setTimeout(() => void poll(), 1000);
      } else {
        setRecomputing(false);
      }
    };
    timer = setTimeout(() => void poll(), 500);
    return () => {
      stopped = true;
      clearTimeout(timer);
      setRecomputing(false);
    };
  }, [id, version]);
  return recomputing;
}

type Extras = ReturnType<typeof extras>;
type Suggestion = Extras['suggested_classification'];

export function FieldDetailPage({ id }: { id: string }) {
  const canAudit = session.can('audit:read');
  const page = useFieldDetail(id, canAudit);
  const { field, metric, error, setStatus, setDecisionError } = page;

  if (error) return <ProblemNotice error={error} />;
  if (!field) return <p aria-busy="true">Loading…</p>;
  const x = {
    ...extras(metric ?? undefined),
    ...Object.fromEntries(Object.entries(extras(field)).filter(([, v]) => v !== undefined)),
  };
  // A confirmation settles the field: its suggestion is withdrawn, even before the metrics catch up.
  const suggestion = field.review_status === 'confirmed' ? null : (x.suggested_classification ?? null);
  const evidence = (x.classification_evidence ?? []) as EvidenceItem[];
  return (
    <section aria-labelledby="field-title">
      <p>
        <a href="/queue">← Review queue</a>
      </p>
      <h1 id="field-title">
        {page.dsName && `${page.dsName} · `}
        {field.table_name} · {field.field_name}
      </h1>
      <FieldFacts field={field} x={x} evidence={evidence} suggestion={suggestion} />

      {session.can('field:review') ? (
        <FieldDecisions
          field={field}
          suggestion={suggestion}
          levels={page.levels}
          onDecided={(message) => {
            setDecisionError(null);
            setStatus(message);
            page.decided();
          }}
          onFailed={(what, e) => {
            setDecisionError(e);
            setStatus(`${what} failed: ${explain(e).summary}`);
          }}
        />
      ) : (
        <div class="notice info" role="note" data-testid="read-only">
          Read-only: your roles do not grant <code>field:review</code>, so decisions are not offered.
        </div>
      )}
      <StatusLine message={page.status} />
      <ProblemNotice error={page.decisionError} />

      <h2>Metrics</h2>
      <ProblemNotice error={page.metricError} />
      {page.recomputing && (
        <p class="muted" data-testid="recomputing" aria-busy="true">
          The metrics are being recomputed after the decision; the score and reason below are from before it.
        </p>
      )}
      {metric && <FieldMetrics field={field} metric={metric} />}

      <h2>Classification evidence</h2>
      {evidence.length ? (
        <Evidence
          items={evidence}
          chosen={`${field.classification_chain_path}`}
          level={field.level}
          confidence={x.classification_confidence ?? null}
        />
      ) : (
        <p class="muted">
          {field.classification_source === 'classifier'
            ? 'The classifier recorded no evidence for this field.'
            : `The classification was ${field.classification_source === 'reviewer' ? 'set by a reviewer' : 'given by an import'}, so there is no classifier evidence to show.`}
        </p>
      )}

      <h2>Decision history</h2>
      <DecisionHistory canAudit={canAudit} history={page.history} error={page.historyError} />
    </section>
  );
}

interface FieldFactsProps {
  field: FieldItem;
  x: Extras;
  evidence: EvidenceItem[];
  suggestion: Suggestion | null;
}

function FieldFacts({ field, x, evidence, suggestion }: FieldFactsProps) {
  // A rule's decision names the rule in its evidence ("rule <name>"): shown with the classification, linked to the Rules page.
  const ruleName =
    x.classification_source === 'rule'
      ? (evidence.find((e) => e.factor === 'rule')?.detail.replace(/^rule /, '') ?? null)
      : null;
  return (
    <dl class="facts">
      <dt>Classification</dt>
      <dd>
        {field.classification_chain_path} <span class={`level level-${field.level}`}>{field.level}</span>
        {field.lock_level && ' (level locked)'}
        {ruleName !== null && (
          <div data-testid="decided-by-rule">
            Decided by rule <a href={`/rules?rule=${encodeURIComponent(ruleName)}`}>{ruleName}</a>
          </div>
        )}
      </dd>
      <dt>Review status</dt>
      <dd>
        <span class={`review review-${field.review_status}`}>{field.review_status}</span>
      </dd>
      <dt>Data type</dt>
      <dd>{field.data_type ?? '–'}</dd>
      <dt>Comment</dt>
      <dd>{field.comment ?? '–'}</dd>
      {x.classification_source && (
        <>
          <dt>Classified by</dt>
          <dd>
            {x.classification_source}
            {typeof x.classification_confidence === 'number' &&
              ` (confidence ${Math.round(x.classification_confidence * 100)}%)`}
          </dd>
        </>
      )}
      {suggestion && (
        <>
          <dt>Suggested</dt>
          <dd data-testid="suggestion">
            {suggestion.chain_path} <span class={`level level-${suggestion.level}`}>{suggestion.level}</span> (
            {Math.round(suggestion.confidence * 100)}%)
          </dd>
        </>
      )}
      <dt>Updated</dt>
      <dd>{new Date(field.updated_at).toLocaleString()}</dd>
    </dl>
  );
}

/** The score, the six bars and what they say, the axes' table and the nearest neighbour. */
function FieldMetrics({ field, metric }: { field: FieldItem; metric: MinibarItem }) {
  return (
    <>
      <p>
        Outlier score <strong>{metric.outlier_score.toFixed(3)}</strong> · severity{' '}
        <span class={`sev sev-${metric.severity}`}>{metric.severity}</span> · {metric.reason}
      </p>
      <Minibars scores={metric.scores} baseline={undefined} severity={metric.severity} />
      <p class="muted legend">
        Each bar is how well this field fits {field.classification_chain_path} ({field.level}) on one signal: near 1 it
        looks like the fields that carry this classification, near 0 like the fields that do not. A bar is red below{' '}
        {POOR_FIT.toFixed(2)} and amber below {WEAK_FIT.toFixed(2)}
        {metric.severity === 'low'
          ? '; this field is rated low, so its weak axes are not counted against it and no bar is coloured.'
          : '.'}
      </p>
      <LowAxes
        scores={metric.scores}
        tag={field.classification_chain_path}
        level={field.level}
        unusualLevel={metric.unusual_level ?? null}
      />
      <AxesTable metric={metric} />
      <p>
        Category similarity {metric.category_similarity.toFixed(3)} · centroid similarity{' '}
        {metric.centroid_similarity.toFixed(3)}
      </p>
      <p>
        Nearest field:{' '}
        {metric.nearest_field_id ? (
          <a href={`/fields/${metric.nearest_field_id}`}>{metric.nearest_field_name ?? metric.nearest_field_id}</a>
        ) : (
          <span class="muted">none</span>
        )}
      </p>
    </>
  );
}

function AxesTable({ metric }: { metric: MinibarItem }) {
  return (
    <table class="axes">
      <caption>Six axes: score (0–1, higher fits better) and raw cosine distance (0–2, lower is closer)</caption>
      <thead>
        <tr>
          <th scope="col">Axis</th>
          <th scope="col">Score</th>
          <th scope="col">Fit</th>
          <th scope="col">Raw distance</th>
        </tr>
      </thead>
      <tbody>
        {AXES.map((a) => {
          const fit = fitOf(metric.scores[a], metric.severity);
          return (
            <tr key={a}>
              <th scope="row">{AXIS_LABELS[a]}</th>
              <td class="num">{metric.scores[a].toFixed(3)}</td>
              <td class={`fit fit-${fit}`}>{fit === 'ok' ? '–' : fit}</td>
              <td class="num">{metric.raw_scores[a].toFixed(3)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function DecisionHistory({
  canAudit,
  history,
  error,
}: {
  canAudit: boolean;
  history: AuditEntry[] | null;
  error: unknown;
}) {
  if (!canAudit)
    return <NoPermission permission="audit:read" what="The decision history comes from the audit log and" />;
  if (error) return <ProblemNotice error={error} />;
  if (history === null) return <p aria-busy="true">Loading…</p>;
  if (history.length === 0) return <p class="muted">No decisions recorded yet.</p>;
  return (
    <table data-testid="history">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Who</th>
          <th scope="col">Action</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {history.map((h) => (
          <tr key={h.seq}>
            <td>{new Date(h.at).toLocaleString()}</td>
            <td>{h.actor_username ?? '–'}</td>
            <td>{h.action}</td>
            <td class="details">{summarize(h.details)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Snapshot = {
  chain_path?: string;
  level?: string;
  locked?: boolean;
  review_status?: string;
  reason?: string | null;
};

/** A decision as a person reads it: before → after, and the reason of a deferral; anything else as key: value. */
function summarize(details: Record<string, unknown>): string {
  const before = details.before as Snapshot | undefined;
  const after = details.after as Snapshot | undefined;
  const show = (s: Snapshot) =>
    [s.chain_path && `${s.chain_path} ${s.level ?? ''}${s.locked ? ' (locked)' : ''}`, s.review_status]
      .filter(Boolean)
      .join(', ');
  if (before && after) return `${show(before)} → ${show(after)}${after.reason ? ` · reason: ${after.reason}` : ''}`;
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

/** An evidence item as the API gives it; `for` names the runner-up tag it spoke for (absent: the chosen tag). */
interface EvidenceItem {
  factor: string;
  score: number;
  detail: string;
  for?: string;
}

const FACTOR_LABELS: Record<string, string> = {
  name: 'Column name',
  table: 'Table name',
  context: 'Other columns of the table',
  comment: 'Comment',
  data_type: 'Declared type',
  values: 'Sample value formats',
  confirmed_fields: 'Confirmed fields nearby',
  anchor: "Similarity to the tag's description",
  rule: 'Rule',
};

/** A declared type that excluded a tag: listed apart, since it speaks about another tag, not against the winner. */
const isRuledOut = (e: EvidenceItem) =>
  e.for === undefined && e.factor === 'data_type' && e.score < 0 && / rules out /.test(e.detail);

/**
 * What chose the classification and what lost: the chosen tag's evidence (for and against it), the tags the declared
 * type ruled out, and each runner-up with what spoke for it and what cost it the answer.
 */
function Evidence({
  items,
  chosen,
  level,
  confidence,
}: {
  items: EvidenceItem[];
  chosen: string;
  level: string;
  confidence: number | null;
}) {
  const winner = items.filter((e) => e.for === undefined && !isRuledOut(e));
  const ruledOut = items.filter(isRuledOut);
  const runnersUp = [...new Set(items.flatMap((e) => (e.for === undefined ? [] : [e.for])))];
  return (
    <div class="evidence">
      <EvidenceTable
        testId="evidence-won"
        caption={`Won: ${chosen} ${level}${confidence !== null ? ` (confidence ${Math.round(confidence * 100)}%)` : ''}`}
        items={winner}
      />
      {runnersUp.length === 0 ? (
        <p class="muted">No other tag came close: there is no runner-up.</p>
      ) : (
        runnersUp.map((tag) => (
          <EvidenceTable
            key={tag}
            testId="evidence-lost"
            caption={`Lost: ${tag}`}
            items={items.filter((e) => e.for === tag)}
          />
        ))
      )}
      {ruledOut.length > 0 && (
        <EvidenceTable testId="evidence-ruled-out" caption="Ruled out by the declared type" items={ruledOut} />
      )}
    </div>
  );
}

function EvidenceTable({ caption, items, testId }: { caption: string; items: EvidenceItem[]; testId: string }) {
  return (
    <table data-testid={testId}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Evidence</th>
          <th scope="col">Effect</th>
          <th scope="col">Points</th>
          <th scope="col">Detail</th>
        </tr>
      </thead>
      <tbody>
        {items.map((e, i) => (
          <tr key={i}>
            <td>{FACTOR_LABELS[e.factor] ?? e.factor}</td>
            <td class={e.score < 0 ? 'effect against' : 'effect for'}>
              {e.score > 0 ? 'for it' : e.score < 0 ? 'against it' : 'note'}
            </td>
            <td class="num">{e.score > 0 ? `+${e.score.toFixed(2)}` : e.score.toFixed(2)}</td>
            <td>{e.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Which bars are low, in words (the legend above says what a bar is). */
function LowAxes({
  scores,
  tag,
  level,
  unusualLevel,
}: {
  scores: Record<(typeof AXES)[number], number>;
  tag: string;
  level: string;
  unusualLevel: UnusualLevel | null;
}) {
  const low = AXES.filter((a) => scores[a] < WEAK_FIT).sort((a, b) => scores[a] - scores[b]);
  if (low.length === 0)
    return (
      <p data-testid="low-axes">
        No bar is low: on every signal it looks like the fields classified {tag} ({level}).
      </p>
    );
  return (
    <div data-testid="low-axes">
      <p>{low.length === 1 ? 'One bar is low:' : `${low.length} bars are low:`}</p>
      <ul>
        {low.map((a) => (
          <li key={a}>
            <strong>{AXIS_LABELS[a]}</strong> ({scores[a].toFixed(2)}): {lowAxisPhrase(a, tag, level, unusualLevel)}.
          </li>
        ))}
      </ul>
    </div>
  );
}
