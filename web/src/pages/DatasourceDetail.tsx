/**
 * One data source: its connection, which datasource:write can edit, Test connection (datasource:write), Start scan and
 * Cancel (scan:run), the live progress of the scan under way (polled once a second while it is queued or running) and
 * the scan history (scan:read).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type ConnectionBody, type Datasource, type Scan } from '../api/client';
import { session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources } from '../data';
import { describeConnection } from './Datasources';
import { notesSummary, ScanNotesList } from './ScanNotes';

const POLL_MS = 1000;
const active = (scan: Scan | undefined) =>
  scan !== undefined && (scan.status === 'queued' || scan.status === 'running');

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
        {finished ? 'Finished' : `Now: ${scan.phase}`} · {tables_done} of {tables_total} tables, {fields_done} of{' '}
        {fields_total} columns
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

type Connection = NonNullable<Datasource['connection']>;
type Kind = Connection['kind'];
type Ssl = NonNullable<Connection['ssl']>;
const DEFAULT_PORT: Record<Kind, number | undefined> = { postgresql: 5432, mysql: 3306, sqlite: undefined };
const SSL_STRENGTH: Record<Ssl, number> = { disable: 0, require: 1, 'verify-full': 2 };

/**
 * Whether saving `next` without a password would drop the stored one, as the server decides it: another kind, host,
 * port, database or user, or weaker TLS. Shown before saving so nobody is surprised.
 */
function destinationMoves(before: Connection, next: ConnectionBody): boolean {
  return (
    before.kind !== next.kind ||
    (before.host ?? '').toLowerCase() !== (next.host ?? '').toLowerCase() ||
    (before.port ?? DEFAULT_PORT[before.kind]) !== (next.port ?? DEFAULT_PORT[next.kind]) ||
    before.database !== next.database ||
    (before.user ?? '') !== (next.user ?? '') ||
    SSL_STRENGTH[next.ssl ?? 'disable'] < SSL_STRENGTH[before.ssl ?? 'disable']
  );
}

interface EditForm {
  kind: Kind;
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
  ssl: Ssl;
}

/** The edited destination over the connection's kept filters and sample size. */
function editedConnection(c: Connection, form: EditForm): ConnectionBody {
  const network = form.kind !== 'sqlite';
  const kept: Partial<ConnectionBody> = {};
  for (const key of ['include_schemas', 'exclude_schemas', 'include_tables', 'exclude_tables', 'sample_size'] as const)
    if (c[key] !== undefined) Object.assign(kept, { [key]: c[key] });
  return {
    ...kept,
    kind: form.kind,
    database: form.database.trim(),
    ...(network && form.host.trim() ? { host: form.host.trim() } : {}),
    ...(network && form.port ? { port: Number(form.port) } : {}),
    ...(network && form.user.trim() ? { user: form.user.trim() } : {}),
    ...(network && form.password ? { password: form.password } : {}),
    ...(network && form.ssl !== 'disable' ? { ssl: form.ssl } : {}),
  };
}

/**
 * Edit where the connection goes (kind, host, port, database, user, password, TLS); the table filters and sample size
 * are kept. A blank password keeps the stored one while the destination stays; moving it without a password drops the
 * stored one, which the form says before saving and the server's notice confirms after.
 */
function ConnectionEditor({
  source,
  onSaved,
  onCancel,
}: {
  source: Datasource & { connection: Connection };
  onSaved: (updated: Datasource, notice: string | undefined) => void;
  onCancel: () => void;
}) {
  const c = source.connection;
  const [form, setForm] = useState<EditForm>({
    kind: c.kind,
    host: c.host ?? '',
    port: c.port ? String(c.port) : '',
    database: c.database,
    user: c.user ?? '',
    password: '',
    ssl: c.ssl ?? 'disable',
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const network = form.kind !== 'sqlite';
  const willDrop = source.has_password && network && !form.password && destinationMoves(c, editedConnection(c, form));

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const updated = await ok(
        api.PATCH('/api/v1/datasources/{id}', {
          params: { path: { id: source.id } },
          body: { connection: editedConnection(c, form) },
        }),
      );
      // The password leaves the page's memory once sent.
      setForm((f) => ({ ...f, password: '' }));
      onSaved(updated, updated.password_dropped ? updated.notice : undefined);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={(e) => void save(e)} aria-labelledby="ds-edit-title" data-testid="connection-editor">
      <h2 id="ds-edit-title">Edit the connection</h2>
      <ProblemNotice error={error} />
      <DestinationFields form={form} setForm={setForm} hasPassword={source.has_password} />
      {willDrop && (
        <p class="notice info" data-testid="password-will-drop">
          This change moves the connection (or weakens its TLS): the stored password will be removed, as it is never
          sent to another destination. Enter the password again to keep one.
        </p>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          Save connection
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface DestinationFieldsProps {
  form: EditForm;
  setForm: (update: (f: EditForm) => EditForm) => void;
  hasPassword: boolean;
}

/** Kind, host, port, database, user, password and TLS of the connection being edited. */
function DestinationFields({ form, setForm, hasPassword }: DestinationFieldsProps) {
  const network = form.kind !== 'sqlite';
  const field = (key: 'host' | 'port' | 'database' | 'user' | 'password') => ({
    value: form[key],
    onInput: (e: Event) => setForm((f) => ({ ...f, [key]: (e.target as HTMLInputElement).value })),
  });
  return (
    <>
      <label for="ds-edit-kind">Database</label>
      <select
        id="ds-edit-kind"
        value={form.kind}
        onChange={(e) => setForm((f) => ({ ...f, kind: (e.target as HTMLSelectElement).value as Kind }))}
      >
        <option value="postgresql">PostgreSQL</option>
        <option value="mysql">MySQL / MariaDB</option>
        <option value="sqlite">SQLite file</option>
      </select>
      {network && (
        <>
          <label for="ds-edit-host">Host</label>
          <input id="ds-edit-host" required maxLength={255} {...field('host')} />
          <label for="ds-edit-port">Port</label>
          <input
            id="ds-edit-port"
            type="number"
            min={1}
            max={65535}
            placeholder={String(DEFAULT_PORT[form.kind])}
            {...field('port')}
          />
        </>
      )}
      <label for="ds-edit-database">
        {network ? 'Database name' : 'File (inside the folder the server allows for SQLite scans)'}
      </label>
      <input id="ds-edit-database" required maxLength={1024} {...field('database')} />
      {network && (
        <>
          <label for="ds-edit-user">User</label>
          <input id="ds-edit-user" maxLength={256} autoComplete="off" {...field('user')} />
          <label for="ds-edit-password">
            {hasPassword ? 'New password (blank: keep the stored one while the destination stays)' : 'Password'}
          </label>
          <input
            id="ds-edit-password"
            type="password"
            maxLength={1024}
            autoComplete="new-password"
            {...field('password')}
          />
          <label for="ds-edit-ssl">TLS</label>
          <select
            id="ds-edit-ssl"
            value={form.ssl}
            onChange={(e) => setForm((f) => ({ ...f, ssl: (e.target as HTMLSelectElement).value as Ssl }))}
          >
            <option value="disable">off</option>
            <option value="require">required</option>
            <option value="verify-full">required, certificate and host verified</option>
          </select>
        </>
      )}
    </>
  );
}

interface Reporting {
  setError: (error: unknown) => void;
  setStatus: (message: string) => void;
}

/** The data source itself: `missing` once the list says it does not exist (any more). */
function useSource(id: string, setError: Reporting['setError']) {
  const [source, setSource] = useState<Datasource | null>(null);
  const [missing, setMissing] = useState(false);
  const loadSource = () =>
    loadDatasources(true).then((all) => {
      const found = all.find((d) => d.id === id) ?? null;
      setSource(found);
      setMissing(!found);
    }, setError);
  return { source, setSource, missing, loadSource };
}

/**
 * The scan history and the scan shown (the one under way, or the last one). While a scan is queued or running it is
 * read again every second, and the history once it ends.
 */
function useScans(id: string, canRead: boolean, { setError, setStatus }: Reporting, loadSource: () => Promise<void>) {
  const [history, setHistory] = useState<Scan[] | null>(null);
  const [current, setCurrent] = useState<Scan | undefined>();
  const poll = useRef<number | undefined>(undefined);

  const loadHistory = async () => {
    if (!canRead) return;
    const page = await ok(
      api.GET('/api/v1/datasources/{id}/scans', { params: { path: { id }, query: { limit: 20 } } }),
    );
    setHistory(page.items);
    setCurrent((c) =>
      c && page.items.some((s) => s.id === c.id) ? (page.items.find((s) => s.id === c.id) ?? c) : page.items[0],
    );
  };

  useEffect(() => {
    setError(null);
    void loadSource();
    loadHistory().catch(setError);
    return () => window.clearTimeout(poll.current);
  }, [id]);

  useEffect(() => {
    window.clearTimeout(poll.current);
    if (!current || !active(current)) return;
    poll.current = window.setTimeout(() => {
      ok(api.GET('/api/v1/scans/{id}', { params: { path: { id: current.id } } })).then((scan) => {
        setCurrent(scan);
        // Finished: the history, and the field count the scan changed.
        if (!active(scan)) {
          setStatus(`Scan ${scan.status}.`);
          void loadHistory().catch(setError);
          void loadSource();
        }
      }, setError);
    }, POLL_MS);
    return () => window.clearTimeout(poll.current);
  }, [current]);

  return { history, setHistory, current, setCurrent, loadHistory };
}

type Scans = ReturnType<typeof useScans>;

/** Test connection, Start scan and Cancel: one at a time (`busy`), each saying how it went. */
function useScanActions(id: string, { setError, setStatus }: Reporting, scans: Scans) {
  const [busy, setBusy] = useState(false);
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
      scans.setCurrent(scan);
      scans.setHistory((h) => [scan, ...(h ?? [])]);
      return 'Scan queued.';
    });

  const cancelScan = (scan: Scan) =>
    run('Cancel scan', async () => {
      const after = await ok(api.POST('/api/v1/scans/{id}/cancel', { params: { path: { id: scan.id } }, body: {} }));
      scans.setCurrent(after);
      if (!active(after)) await scans.loadHistory();
      return after.status === 'cancelled' ? 'Scan cancelled.' : 'Cancelling the scan…';
    });

  return { busy, testConnection, startScan, cancelScan };
}

export function DatasourceDetailPage({ id }: { id: string }) {
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState(false);
  const [passwordNotice, setPasswordNotice] = useState<string | undefined>();
  const reporting = { setError, setStatus };
  const canRead = session.can('scan:read');
  const { source, setSource, missing, loadSource } = useSource(id, setError);
  const scans = useScans(id, canRead, reporting, loadSource);
  const actions = useScanActions(id, reporting, scans);
  const { current } = scans;

  if (missing) {
    return (
      <section>
        <h1>Not found</h1>
        <p>
          There is no data source with this id (it may have been deleted).{' '}
          <a href="/datasources">See the data sources</a>.
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
      <SourceFacts source={source} />
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {passwordNotice && (
        <div class="notice error" role="alert" data-testid="password-dropped">
          <strong>Password removed.</strong> {passwordNotice}
        </div>
      )}
      {editing && source.connection && (
        <ConnectionEditor
          source={{ ...source, connection: source.connection }}
          onCancel={() => setEditing(false)}
          onSaved={(updated, notice) => {
            setSource(updated);
            setPasswordNotice(notice);
            setEditing(false);
            setStatus('Connection saved.');
            // The list the other pages read is stale now.
            void loadDatasources(true).catch(() => undefined);
          }}
        />
      )}
      {source.is_sample ? (
        <p class="muted">The trial's sample data source has no database to scan.</p>
      ) : !source.connection ? (
        <p class="muted">This data source has no connection: its fields arrive through the import API.</p>
      ) : (
        <ScanButtons current={current} editing={editing} onEdit={() => setEditing(true)} actions={actions} />
      )}
      {current && <ScanProgress scan={current} />}
      <h2>Scan history</h2>
      {!canRead ? (
        <NoPermission permission="scan:read" what="The scan history" />
      ) : scans.history && scans.history.length === 0 ? (
        <p class="muted" data-testid="no-scan-history">
          No scans yet.
        </p>
      ) : (
        scans.history && <ScanHistory history={scans.history} current={current} />
      )}
    </section>
  );
}

function SourceFacts({ source }: { source: Datasource }) {
  return (
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
  );
}

interface ScanButtonsProps {
  current: Scan | undefined;
  editing: boolean;
  onEdit: () => void;
  actions: ReturnType<typeof useScanActions>;
}

function ScanButtons({ current, editing, onEdit, actions }: ScanButtonsProps) {
  const { busy, testConnection, startScan, cancelScan } = actions;
  const canWrite = session.can('datasource:write');
  const canRun = session.can('scan:run');
  return (
    <div class="buttons">
      {canWrite && (
        <button type="button" disabled={busy} onClick={() => void testConnection()}>
          Test connection
        </button>
      )}
      {canWrite && !editing && (
        <button type="button" disabled={busy} onClick={onEdit}>
          Edit connection
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
  );
}

/** The scans, newest first; the one under way as last read. */
function ScanHistory({ history, current }: { history: Scan[]; current: Scan | undefined }) {
  return (
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
        {history
          .map((s) => (s.id === current?.id ? current : s))
          .map((s) => (
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
              <td class="details" data-testid="scan-history-notes">
                {notesSummary(s.notes)}
              </td>
              <td class="details">{s.error ?? ''}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
