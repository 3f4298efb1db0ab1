/**
 * One data source: its connection, Test connection (datasource:write), Start scan and Cancel (scan:run), the live
 * progress of the scan under way (polled once a second while it is queued or running) and the scan history (scan:read).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Datasource, type Scan } from '../api/client';
import { session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources } from '../data';
import { describeConnection } from './Datasources';
import { notesSummary, ScanNotesList } from './ScanNotes';

const POLL_MS = 1000;
const active = (scan: Scan | undefined) => scan !== undefined && (scan.status === 'queued' || scan.status === 'running');

function when(at: string | null): string {
  return at ? new Date(at).toLocaleString() : '–';
}

/** The scan under way (or the last one) as a progress bar and words: phase, tables and columns done, counts. */
function ScanProgress({ scan }: { scan: Scan }) {
  const { tables_done, tables_total, fields_done, fields_total } = scan.progress;
  const c = scan.counts;
  const finished = !active(scan);
  // Tables are the unit of progress once listed; before that the bar is empty (queued, connecting, listing).
  const share = scan.status === 'succeeded' ? 1 : tables_total > 0 ? tables_done / tables_total : 0;
  return (
    <div class="scan-progress" data-testid="scan-progress" data-status={scan.status}>
      <div class="usage">
        <span class="usage-label">
          Scan <span class={`scan-status scan-${scan.status}`}>{scan.status}</span>
        </span>
        <progress max={1} value={share} aria-label={`Scan progress: ${tables_done} of ${tables_total} tables`} />
        <span class="usage-value">{Math.round(share * 100)} %</span>
      </div>
      <p class="muted" aria-live="polite">
        {finished ? 'Finished' : `Now: ${scan.phase}`} · {tables_done} of {tables_total} tables, {fields_done} of {fields_total} columns
        {scan.started_at ? ` · started ${when(scan.started_at)}` : ''}
        {scan.finished_at ? ` · finished ${when(scan.finished_at)}` : ''}
      </p>
      {finished && (
        <p data-testid="scan-counts">
          New {c.new}, changed {c.changed}, removed {c.removed}, unchanged {c.unchanged}; classified {c.classified}.
        </p>
      )}
      <ScanNotesList notes={scan.notes} />
      {scan.error && (
        <div class="notice error" role="alert">
          <strong>The scan failed.</strong> {scan.error}
        </div>
      )}
    </div>
  );
}

export function DatasourceDetailPage({ id }: { id: string }) {
  const [source, setSource] = useState<Datasource | null>(null);
  const [missing, setMissing] = useState(false);
  const [history, setHistory] = useState<Scan[] | null>(null);
  const [current, setCurrent] = useState<Scan | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const canWrite = session.can('datasource:write');
  const canRun = session.can('scan:run');
  const canRead = session.can('scan:read');
  const poll = useRef<number | undefined>(undefined);

  const loadHistory = async () => {
    if (!canRead) return;
    const page = await ok(api.GET('/api/v1/datasources/{id}/scans', { params: { path: { id }, query: { limit: 20 } } }));
    setHistory(page.items);
    setCurrent((c) => (c && page.items.some((s) => s.id === c.id) ? (page.items.find((s) => s.id === c.id) ?? c) : page.items[0]));
  };

  const loadSource = () =>
    loadDatasources(true).then((all) => {
      const found = all.find((d) => d.id === id) ?? null;
      setSource(found);
      setMissing(!found);
    }, setError);

  useEffect(() => {
    setError(null);
    void loadSource();
    loadHistory().catch(setError);
    return () => window.clearTimeout(poll.current);
  }, [id]);

  // While a scan is queued or running: read it again every second, and the history once it ends.
  useEffect(() => {
    window.clearTimeout(poll.current);
    if (!current || !active(current)) return;
    poll.current = window.setTimeout(() => {
      ok(api.GET('/api/v1/scans/{id}', { params: { path: { id: current.id } } })).then(
        (scan) => {
          setCurrent(scan);
          // Finished: the history, and the field count the scan changed.
          if (!active(scan)) {
            setStatus(`Scan ${scan.status}.`);
            void loadHistory().catch(setError);
            void loadSource();
          }
        },
        setError,
      );
    }, POLL_MS);
    return () => window.clearTimeout(poll.current);
  }, [current]);

  const run = async (what: string, action: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      setStatus(await action());
    } catch (e) {
      setError(e);
      setStatus(`${what} failed.`);
    } finally {
      setBusy(false);
    }
  };

  const testConnection = () =>
    run('Test connection', async () => {
      const result = await ok(api.POST('/api/v1/datasources/{id}/test-connection', { params: { path: { id } } }));
      return `Connected: ${result.server_version}.`;
    });

  const startScan = () =>
    run('Start scan', async () => {
      const scan = await ok(api.POST('/api/v1/datasources/{id}/scans', { params: { path: { id } }, body: {} }));
      setCurrent(scan);
      setHistory((h) => [scan, ...(h ?? [])]);
      return 'Scan queued.';
    });

  const cancelScan = (scan: Scan) =>
    run('Cancel scan', async () => {
      const after = await ok(api.POST('/api/v1/scans/{id}/cancel', { params: { path: { id: scan.id } }, body: {} }));
      setCurrent(after);
      if (!active(after)) await loadHistory();
      return after.status === 'cancelled' ? 'Scan cancelled.' : 'Cancelling the scan…';
    });

  if (missing) {
    return (
      <section>
        <h1>Not found</h1>
        <p>
          There is no data source with this id (it may have been deleted). <a href="/datasources">See the data sources</a>.
        </p>
      </section>
    );
  }
  if (!source && !error) return <p aria-busy="true">Loading…</p>;
  if (!source) return <ProblemNotice error={error} />;
  return (
    <section aria-labelledby="ds-detail-title">
      <p>
        <a href="/datasources">← Data sources</a>
      </p>
      <h1 id="ds-detail-title">{source.name}</h1>
      <dl class="facts">
        <dt>Type</dt>
        <dd>{source.type}</dd>
        <dt>Connection</dt>
        <dd data-testid="connection">{describeConnection(source)}</dd>
        {source.connection && (
          <>
            <dt>Password</dt>
            <dd>{source.has_password ? 'stored (encrypted)' : 'none'}</dd>
            <dt>Automatic scans</dt>
            <dd>{source.scan_interval_hours ? `every ${source.scan_interval_hours} h` : 'off'}</dd>
          </>
        )}
        <dt>Fields</dt>
        <dd>
          <a href={`/queue?datasource_id=${source.id}&review_status=any`}>{source.field_count}</a>
        </dd>
      </dl>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {source.is_sample ? (
        <p class="muted">The trial's sample data source has no database to scan.</p>
      ) : !source.connection ? (
        <p class="muted">This data source has no connection: its fields arrive through the import API.</p>
      ) : (
        <div class="buttons">
          {canWrite && (
            <button type="button" disabled={busy} onClick={() => void testConnection()}>
              Test connection
            </button>
          )}
          {canRun && (
            <button type="button" class="primary" disabled={busy || active(current)} onClick={() => void startScan()}>
              Start scan
            </button>
          )}
          {canRun && current && active(current) && (
            <button type="button" disabled={busy} onClick={() => void cancelScan(current)}>
              Cancel scan
            </button>
          )}
        </div>
      )}
      {current && <ScanProgress scan={current} />}
      <h2>Scan history</h2>
      {!canRead ? (
        <NoPermission permission="scan:read" what="The scan history" />
      ) : history && history.length === 0 ? (
        <p class="muted" data-testid="no-scan-history">
          No scans yet.
        </p>
      ) : (
        history && (
          <table class="scans">
            <thead>
              <tr>
                <th scope="col">Requested</th>
                <th scope="col">Status</th>
                <th scope="col">Finished</th>
                <th scope="col">New</th>
                <th scope="col">Changed</th>
                <th scope="col">Removed</th>
                <th scope="col">Unchanged</th>
                <th scope="col">Classified</th>
                <th scope="col">Not scanned whole</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {history.map((s) => (s.id === current?.id ? current : s)).map((s) => (
                <tr key={s.id}>
                  <td>{when(s.created_at)}</td>
                  <td>
                    <span class={`scan-status scan-${s.status}`}>{s.status}</span>
                  </td>
                  <td>{when(s.finished_at)}</td>
                  <td class="num">{s.counts.new}</td>
                  <td class="num">{s.counts.changed}</td>
                  <td class="num">{s.counts.removed}</td>
                  <td class="num">{s.counts.unchanged}</td>
                  <td class="num">{s.counts.classified}</td>
                  <td class="details" data-testid="scan-history-notes">{notesSummary(s.notes)}</td>
                  <td class="details">{s.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      )}
    </section>
  );
}
