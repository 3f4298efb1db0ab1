/** One field: every axis with its raw value, the nearest neighbour, classification evidence, and its decision history. */
import { useEffect, useState } from 'preact/hooks';
import { api, extras, ok, type AuditEntry, type FieldItem, type MinibarItem } from '../api/client';
import { session } from '../api/session';
import { AXES, AXIS_LABELS, Minibars } from '../components/Minibars';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { loadDatasources } from '../data';

export function FieldDetailPage({ id }: { id: string }) {
  const [field, setField] = useState<FieldItem | null>(null);
  const [metric, setMetric] = useState<MinibarItem | null>(null);
  const [metricError, setMetricError] = useState<unknown>(null);
  const [history, setHistory] = useState<AuditEntry[] | null>(null);
  const [historyError, setHistoryError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [dsName, setDsName] = useState('');
  const canAudit = session.can('audit:read');

  useEffect(() => {
    setField(null);
    setMetric(null);
    setHistory(null);
    setError(null);
    void ok(api.GET('/api/v1/fields/{id}', { params: { path: { id } } })).then(async (f) => {
      setField(f);
      const sources = await loadDatasources().catch(() => []);
      setDsName(sources.find((d) => d.id === f.datasource_id)?.name ?? '');
    }, setError);
    void ok(api.POST('/api/v1/classify/fields/embedding-minibars', { body: { field_ids: [id] } })).then((r) => setMetric(r.items[0] ?? null), setMetricError);
    if (canAudit) void ok(api.GET('/api/v1/audit-logs', { params: { query: { target_id: id, limit: 100 } } })).then((r) => setHistory(r.items), setHistoryError);
  }, [id]);

  if (error) return <ProblemNotice error={error} />;
  if (!field) return <p aria-busy="true">Loading…</p>;
  const x = { ...extras(metric ?? undefined), ...Object.fromEntries(Object.entries(extras(field)).filter(([, v]) => v !== undefined)) };
  return (
    <section aria-labelledby="field-title">
      <p>
        <a href="/queue">← Review queue</a>
      </p>
      <h1 id="field-title">
        {dsName && `${dsName} · `}
        {field.table_name} · {field.field_name}
      </h1>
      <dl class="facts">
        <dt>Classification</dt>
        <dd>
          {field.classification_chain_path} <span class={`level level-${field.level}`}>{field.level}</span>
          {field.lock_level && ' (level locked)'}
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
              {typeof x.classification_confidence === 'number' && ` (confidence ${Math.round(x.classification_confidence * 100)}%)`}
            </dd>
          </>
        )}
        {x.suggested_classification && (
          <>
            <dt>Suggested</dt>
            <dd>
              {x.suggested_classification.chain_path} {x.suggested_classification.level} ({Math.round(x.suggested_classification.confidence * 100)}%)
            </dd>
          </>
        )}
        <dt>Updated</dt>
        <dd>{new Date(field.updated_at).toLocaleString()}</dd>
      </dl>

      <h2>Metrics</h2>
      <ProblemNotice error={metricError} />
      {metric && (
        <>
          <p>
            Outlier score <strong>{metric.outlier_score.toFixed(3)}</strong> · severity <span class={`sev sev-${metric.severity}`}>{metric.severity}</span> · {metric.reason}
          </p>
          <Minibars scores={metric.scores} baseline={undefined} />
          <table class="axes">
            <caption>Six axes: score (0–1, higher fits better) and raw cosine distance (0–2, lower is closer)</caption>
            <thead>
              <tr>
                <th scope="col">Axis</th>
                <th scope="col">Score</th>
                <th scope="col">Raw distance</th>
              </tr>
            </thead>
            <tbody>
              {AXES.map((a) => (
                <tr key={a}>
                  <th scope="row">{AXIS_LABELS[a]}</th>
                  <td class="num">{metric.scores[a].toFixed(3)}</td>
                  <td class="num">{metric.raw_scores[a].toFixed(3)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            Category similarity {metric.category_similarity.toFixed(3)} · centroid similarity {metric.centroid_similarity.toFixed(3)}
          </p>
          <p>
            Nearest field:{' '}
            {metric.nearest_field_id ? <a href={`/fields/${metric.nearest_field_id}`}>{metric.nearest_field_name ?? metric.nearest_field_id}</a> : <span class="muted">none</span>}
          </p>
        </>
      )}

      <h2>Classification evidence</h2>
      {x.classification_evidence?.length ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Factor</th>
              <th scope="col">Score</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {x.classification_evidence.map((e, i) => (
              <tr key={i}>
                <td>{e.factor}</td>
                <td class="num">{e.score.toFixed(2)}</td>
                <td>{e.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">This server records no classification evidence for the field.</p>
      )}

      <h2>Decision history</h2>
      {!canAudit ? (
        <NoPermission permission="audit:read" what="The decision history comes from the audit log and" />
      ) : historyError ? (
        <ProblemNotice error={historyError} />
      ) : history === null ? (
        <p aria-busy="true">Loading…</p>
      ) : history.length === 0 ? (
        <p class="muted">No decisions recorded yet.</p>
      ) : (
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
      )}
    </section>
  );
}

type Snapshot = { chain_path?: string; level?: string; locked?: boolean; review_status?: string; reason?: string | null };

/** A decision as a person reads it: before → after, and the reason of a deferral; anything else as key: value. */
function summarize(details: Record<string, unknown>): string {
  const before = details.before as Snapshot | undefined;
  const after = details.after as Snapshot | undefined;
  const show = (s: Snapshot) => [s.chain_path && `${s.chain_path} ${s.level ?? ''}${s.locked ? ' (locked)' : ''}`, s.review_status].filter(Boolean).join(', ');
  if (before && after) return `${show(before)} → ${show(after)}${after.reason ? ` · reason: ${after.reason}` : ''}`;
  return Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}
