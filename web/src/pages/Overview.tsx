/**
 * Review progress (exact totals and the progress over time, from GET /review/progress), then counts by level,
 * severity and review status from pages of GET /fields (500 at a time, up to a cap so the page stays cheap on a large
 * catalog) and by data source (the data sources' own field counts, exact).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Datasource, type ReviewProgress } from '../api/client';
import { UsageBar } from '../components/Minibars';
import { ProblemNotice } from '../components/ProblemNotice';
import { ProgressChart } from '../components/ProgressChart';
import { loadDatasources } from '../data';

const CAP = 10_000;

interface Counts {
  total: number;
  complete: boolean;
  level: Map<string, number>;
  severity: Map<string, number>;
  review: Map<string, number>;
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The two views of progress over time: the last 30 days by day, the last 26 weeks by week. */
const SPANS = {
  day: { bucket: 'day', days: 30, label: 'Last 30 days, by day' },
  week: { bucket: 'week', days: 182, label: 'Last 26 weeks, by week' },
} as const;

export function OverviewPage() {
  const [span, setSpan] = useState<keyof typeof SPANS>('day');
  const { progress, progressError } = useReviewProgress(span);
  const { counts, sources, error } = useFieldCounts();

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      <ProblemNotice error={error} />
      <h2>Review progress</h2>
      <ProblemNotice error={progressError} />
      {!progress && !progressError && <p aria-busy="true">Reading the review progress…</p>}
      {progress && (
        <>
          <UsageBar label="Confirmed fields" value={progress.fields_confirmed} max={progress.fields_total} />
          <label class="inline">
            Over time{' '}
            <select value={span} onChange={(e) => setSpan((e.target as HTMLSelectElement).value as keyof typeof SPANS)}>
              {Object.entries(SPANS).map(([key, s]) => (
                <option key={key} value={key}>
                  {s.label}
                </option>
              ))}
            </select>
          </label>
          <ProgressChart progress={progress} />
        </>
      )}
      {!counts && !error && <p aria-busy="true">Counting fields…</p>}
      {counts && (
        <>
          {!counts.complete && <p class="muted">Counted over the first {CAP.toLocaleString()} fields by name.</p>}
          <div class="cards">
            <CountTable title="By review status" map={counts.review} />
            <CountTable title="By level" map={counts.level} />
            <CountTable title="By severity" map={counts.severity} />
          </div>
        </>
      )}
      <h2>By data source</h2>
      <SourcesTable sources={sources} />
    </section>
  );
}

/** The review progress over the chosen span, read again when the span changes. */
function useReviewProgress(span: keyof typeof SPANS) {
  const [progress, setProgress] = useState<ReviewProgress | null>(null);
  const [progressError, setProgressError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    const { bucket, days } = SPANS[span];
    setProgressError(null);
    void ok(api.GET('/api/v1/review/progress', { params: { query: { bucket, days } } })).then(
      (p) => {
        if (!cancelled) setProgress(p);
      },
      (e: unknown) => {
        if (!cancelled) setProgressError(e);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [span]);
  return { progress, progressError };
}

/** The counts by level, severity and review status (up to CAP fields), and the data sources with their field counts. */
function useFieldCounts() {
  const [counts, setCounts] = useState<Counts | null>(null);
  const [sources, setSources] = useState<Datasource[]>([]);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let cancelled = false;
    void loadDatasources(true).then(setSources, setError);
    void (async () => {
      const c: Counts = { total: 0, complete: true, level: new Map(), severity: new Map(), review: new Map() };
      let cursor: string | undefined;
      try {
        do {
          const page = await ok(
            api.GET('/api/v1/fields', {
              params: { query: { sort: 'name', limit: 500, ...(cursor ? { cursor } : {}) } },
            }),
          );
          for (const f of page.items) {
            c.total += 1;
            bump(c.level, f.level);
            bump(c.severity, f.severity ?? 'not scored');
            bump(c.review, f.review_status);
          }
          cursor = page.next_cursor ?? undefined;
          if (cursor && c.total >= CAP) {
            c.complete = false;
            break;
          }
        } while (cursor && !cancelled);
        if (!cancelled) setCounts(c);
      } catch (e) {
        if (!cancelled) setError(e);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, []);
  return { counts, sources, error };
}

function SourcesTable({ sources }: { sources: Datasource[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Data source</th>
          <th scope="col">Type</th>
          <th scope="col">Fields</th>
        </tr>
      </thead>
      <tbody>
        {sources.map((d) => (
          <tr key={d.id}>
            <td>
              <a href={`/queue?datasource_id=${d.id}&review_status=any`}>{d.name}</a>
              {d.is_sample && <span class="muted"> (sample)</span>}
            </td>
            <td>{d.type}</td>
            <td class="num">{d.field_count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CountTable({ title, map }: { title: string; map: Map<string, number> }) {
  const entries = [...map.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  return (
    <table class="counts">
      <caption>{title}</caption>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td class="num">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
