/**
 * The inventory report (GET /api/v1/reports/inventory): what sensitive data is held, where, and how much of it a person
 * has checked — totals and review progress, by level, by data source, by tag; charts as SVG (no inline styles) with
 * the exact numbers in tables beside them. The print stylesheet drops the navigation and buttons, so "Print → Save as
 * PDF" gives a clean report headed by the date and the instance it was taken from.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';

type Inventory = Schemas<'/api/v1/reports/inventory', 'get'>;

const percent = (part: number, whole: number) => (whole > 0 ? `${Math.round((part / whole) * 1000) / 10} %` : '—');
const count = (n: number) => n.toLocaleString('en');

/** A horizontal bar chart: one labelled bar per item, scaled to the largest; the label is also the bar's text. */
function BarChart({
  items,
  label,
}: {
  items: Array<{ key: string; label: string; value: number; part?: number }>;
  label: string;
}) {
  const W = 640;
  const ROW = 22;
  const LABEL_W = 220;
  const VALUE_W = 90;
  const max = Math.max(1, ...items.map((i) => i.value));
  const plot = W - LABEL_W - VALUE_W;
  return (
    <svg class="report-chart" viewBox={`0 0 ${W} ${items.length * ROW + 4}`} role="img" aria-label={label}>
      {items.map((item, i) => {
        const y = i * ROW + 2;
        const w = (item.value / max) * plot;
        const part = item.part === undefined ? 0 : (item.part / max) * plot;
        return (
          <g key={item.key}>
            <text class="tick" x={LABEL_W - 8} y={y + 14} text-anchor="end">
              {item.label.length > 34 ? `…${item.label.slice(-33)}` : item.label}
            </text>
            <rect class="bar-track" x={LABEL_W} y={y + 3} width={plot} height={ROW - 8} />
            <rect class="bar-all" x={LABEL_W} y={y + 3} width={w} height={ROW - 8} />
            {item.part !== undefined && <rect class="bar-part" x={LABEL_W} y={y + 3} width={part} height={ROW - 8} />}
            <text class="tick" x={LABEL_W + plot + 6} y={y + 14}>
              {count(item.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** One stacked bar of the review states of all fields. */
function ProgressBar({ totals }: { totals: Inventory['totals'] }) {
  const W = 640;
  const whole = Math.max(1, totals.fields);
  const c = (totals.confirmed / whole) * W;
  const d = (totals.deferred / whole) * W;
  return (
    <svg
      class="report-chart"
      viewBox={`0 0 ${W} 18`}
      role="img"
      aria-label={`Review progress: ${percent(totals.confirmed, totals.fields)} confirmed, ${percent(totals.deferred, totals.fields)} deferred, ${percent(totals.unreviewed, totals.fields)} unreviewed`}
    >
      <rect class="bar-track" x={0} y={0} width={W} height={18} />
      <rect class="bar-part" x={0} y={0} width={c} height={18} />
      <rect class="bar-deferred" x={c} y={0} width={d} height={18} />
    </svg>
  );
}

/** The report, read once (for field:read) and again on Refresh. */
function useInventory() {
  const [report, setReport] = useState<Inventory | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    setError(null);
    try {
      setReport(await ok(api.GET('/api/v1/reports/inventory')));
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (session.can('field:read')) void load();
  }, []);
  return { report, error, load };
}

export function InventoryPage() {
  const { report, error, load } = useInventory();

  if (!session.can('field:read')) return <NoPermission permission="field:read" what="The inventory report" />;

  const levelName = new Map((report?.levels ?? []).map((l) => [l.code, l.name]));
  return (
    <section class="report" aria-labelledby="inventory-title">
      <ReportHead report={report} />
      <div class="toolbar no-print">
        <button type="button" class="primary" onClick={() => window.print()} disabled={!report}>
          Print or save as PDF
        </button>
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <ProblemNotice error={error} />
      {!report && !error && <p aria-busy="true">Counting the catalog…</p>}
      {report && (
        <>
          <TotalsPart report={report} />
          <LevelsPart report={report} levelName={levelName} />
          <SourcesPart report={report} />
          <TagsPart report={report} />
        </>
      )}
    </section>
  );
}

/** The title, and where, when and by whom the report was taken. */
function ReportHead({ report }: { report: Inventory | null }) {
  const generated = report ? new Date(report.generated_at) : null;
  return (
    <header class="report-head">
      <h1 id="inventory-title">Inventory report</h1>
      <p class="report-meta" data-testid="report-meta">
        FieldLens at <strong>{location.host}</strong>
        {generated && (
          <>
            {' '}
            · generated{' '}
            <time dateTime={report?.generated_at}>
              {generated.toLocaleString('en-GB', { dateStyle: 'long', timeStyle: 'short' })}
            </time>{' '}
            ({report?.generated_at.slice(0, 16).replace('T', ' ')} UTC)
          </>
        )}
        {session.me && <> · by {session.me.username}</>}
      </p>
    </header>
  );
}

function TotalsPart({ report }: { report: Inventory }) {
  return (
    <section aria-labelledby="totals-title" class="report-part">
      <h2 id="totals-title">What is held and how much a person has checked</h2>
      <dl class="totals">
        <div>
          <dt>Fields</dt>
          <dd data-testid="total-fields">{count(report.totals.fields)}</dd>
        </div>
        <div>
          <dt>Confirmed</dt>
          <dd>
            {count(report.totals.confirmed)}{' '}
            <span class="muted">({percent(report.totals.confirmed, report.totals.fields)})</span>
          </dd>
        </div>
        <div>
          <dt>Deferred</dt>
          <dd>{count(report.totals.deferred)}</dd>
        </div>
        <div>
          <dt>Unreviewed</dt>
          <dd>{count(report.totals.unreviewed)}</dd>
        </div>
        <div>
          <dt>High risk</dt>
          <dd>{count(report.by_datasource.reduce((n, s) => n + s.high_risk, 0))}</dd>
        </div>
      </dl>
      <ProgressBar totals={report.totals} />
      <p class="legend muted">
        <span class="key key-part" /> confirmed <span class="key key-deferred" /> deferred{' '}
        <span class="key key-track" /> unreviewed. High risk: unreviewed fields whose severity is high (likely
        misclassified, not yet checked).
      </p>
    </section>
  );
}

function LevelsPart({ report, levelName }: { report: Inventory; levelName: Map<string, string> }) {
  return (
    <section aria-labelledby="levels-title" class="report-part">
      <h2 id="levels-title">By level</h2>
      <BarChart
        label="Fields per level, confirmed part darker"
        items={report.by_level.map((l) => ({
          key: l.level,
          label: `${l.level} ${levelName.get(l.level) ?? ''}`.trim(),
          value: l.fields,
          part: l.confirmed,
        }))}
      />
      <table class="report-table" data-testid="by-level">
        <thead>
          <tr>
            <th scope="col">Level</th>
            <th scope="col">Fields</th>
            <th scope="col">Confirmed</th>
            <th scope="col">Share confirmed</th>
          </tr>
        </thead>
        <tbody>
          {report.by_level.map((l) => (
            <tr key={l.level}>
              <th scope="row">
                <span class="level">{l.level}</span> {levelName.get(l.level) ?? ''}
              </th>
              <td class="num">{count(l.fields)}</td>
              <td class="num">{count(l.confirmed)}</td>
              <td class="num">{percent(l.confirmed, l.fields)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function SourcesPart({ report }: { report: Inventory }) {
  return (
    <section aria-labelledby="sources-title" class="report-part">
      <h2 id="sources-title">By data source</h2>
      <BarChart
        label="Fields per data source, confirmed part darker"
        items={report.by_datasource.map((s) => ({
          key: s.datasource_id,
          label: s.name,
          value: s.fields,
          part: s.confirmed,
        }))}
      />
      <table class="report-table" data-testid="by-datasource">
        <thead>
          <tr>
            <th scope="col">Data source</th>
            {report.levels.map((l) => (
              <th scope="col" key={l.code}>
                {l.code}
              </th>
            ))}
            <th scope="col">Fields</th>
            <th scope="col">Confirmed</th>
            <th scope="col">High risk</th>
          </tr>
        </thead>
        <tbody>
          {report.by_datasource.map((s) => (
            <tr key={s.datasource_id}>
              <th scope="row">
                <a href={`/datasources/${s.datasource_id}`}>{s.name}</a>
                {s.is_sample && <span class="muted"> (sample)</span>}
              </th>
              {report.levels.map((l) => (
                <td class="num" key={l.code}>
                  {count(s.by_level[l.code] ?? 0)}
                </td>
              ))}
              <td class="num">{count(s.fields)}</td>
              <td class="num">{percent(s.confirmed, s.fields)}</td>
              <td class={`num${s.high_risk > 0 ? ' sev-high' : ''}`}>{count(s.high_risk)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function TagsPart({ report }: { report: Inventory }) {
  return (
    <section aria-labelledby="tags-title" class="report-part">
      <h2 id="tags-title">By tag</h2>
      {report.by_tag.length === 0 ? (
        <p class="muted">No field is classified yet.</p>
      ) : (
        <>
          <BarChart
            label="Fields per tag, the ten largest"
            items={report.by_tag
              .slice(0, 10)
              .map((t) => ({ key: String(t.tag_id), label: t.chain_path, value: t.fields }))}
          />
          <table class="report-table" data-testid="by-tag">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Fields</th>
                <th scope="col">Share of all fields</th>
              </tr>
            </thead>
            <tbody>
              {report.by_tag.map((t) => (
                <tr key={t.tag_id}>
                  <th scope="row" class="path">
                    {t.chain_path}
                  </th>
                  <td class="num">{count(t.fields)}</td>
                  <td class="num">{percent(t.fields, report.totals.fields)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
