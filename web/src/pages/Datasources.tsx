/**
 * Data sources: the list (with each one's connection), and for datasource:write a form to create one, with a database
 * connection for scans when the server offers them. Each name opens the data source's page (test connection, scans).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type ConnectionBody, type Datasource } from '../api/client';
import { session } from '../api/session';
import { ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources } from '../data';
import { navigate } from '../router';

/** "postgresql · db.example.com:5432/sales", or "–" for a source fed by the import API. */
export function describeConnection(d: Datasource): string {
  const c = d.connection;
  if (!c) return '–';
  if (c.kind === 'sqlite') return `sqlite · ${c.database}`;
  return `${c.kind} · ${c.host ?? ''}${c.port ? `:${c.port}` : ''}/${c.database}`;
}

type Kind = '' | ConnectionBody['kind'];

/** Comma- or line-separated name patterns → the API's array (absent when empty). */
function patterns(text: string): string[] | undefined {
  const list = text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter(Boolean);
  return list.length > 0 ? list : undefined;
}

export function DatasourcesPage() {
  const [items, setItems] = useState<Datasource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [scans, setScans] = useState(false);
  const [name, setName] = useState('');
  const [type, setType] = useState('postgresql');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<Kind>('');
  const [conn, setConn] = useState({ host: '', port: '', database: '', user: '', password: '', ssl: '', include_tables: '', exclude_tables: '', sample_size: '', interval: '' });
  const canWrite = session.can('datasource:write');

  const reload = () => loadDatasources(true).then(setItems, setError);
  useEffect(() => {
    void reload();
    void serverCapabilities().then((c) => setScans(c.scans));
  }, []);

  const field = (key: keyof typeof conn) => ({
    value: conn[key],
    onInput: (e: Event) => setConn((c) => ({ ...c, [key]: (e.target as HTMLInputElement).value })),
  });

  const connectionBody = (): ConnectionBody | undefined => {
    if (!kind) return undefined;
    const include = patterns(conn.include_tables);
    const exclude = patterns(conn.exclude_tables);
    return {
      kind,
      database: conn.database.trim(),
      ...(kind !== 'sqlite' && conn.host.trim() ? { host: conn.host.trim() } : {}),
      ...(kind !== 'sqlite' && conn.port ? { port: Number(conn.port) } : {}),
      ...(kind !== 'sqlite' && conn.user.trim() ? { user: conn.user.trim() } : {}),
      ...(kind !== 'sqlite' && conn.password ? { password: conn.password } : {}),
      ...(kind !== 'sqlite' && conn.ssl ? { ssl: conn.ssl as NonNullable<ConnectionBody['ssl']> } : {}),
      ...(include ? { include_tables: include } : {}),
      ...(exclude ? { exclude_tables: exclude } : {}),
      ...(conn.sample_size ? { sample_size: Number(conn.sample_size) } : {}),
    };
  };

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const connection = connectionBody();
      const created = await ok(
        api.POST('/api/v1/datasources', {
          body: {
            name: name.trim(),
            type: type.trim(),
            description: description.trim() || null,
            ...(connection ? { connection } : {}),
            ...(connection && conn.interval ? { scan_interval_hours: Number(conn.interval) } : {}),
          },
        }),
      );
      setStatus(`Created data source ${created.name}.`);
      setName('');
      setDescription('');
      // The password leaves the page's memory once sent.
      setConn((c) => ({ ...c, password: '' }));
      await reload();
      // A source with a connection is created to be tested and scanned: go to its page.
      if (created.connection) navigate(`/datasources/${created.id}`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section aria-labelledby="ds-title">
      <h1 id="ds-title">Data sources</h1>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {items && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
              {scans && <th scope="col">Connection</th>}
              <th scope="col">Fields</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  <a href={`/datasources/${d.id}`}>{d.name}</a>
                  {d.is_sample && <span class="muted"> (sample)</span>}
                </td>
                <td>{d.type}</td>
                <td>{d.description ?? ''}</td>
                {scans && <td>{describeConnection(d)}</td>}
                <td class="num">
                  <a href={`/queue?datasource_id=${d.id}`} aria-label={`${d.field_count} fields of ${d.name} in the review queue`}>
                    {d.field_count}
                  </a>
                </td>
                <td>{new Date(d.created_at).toLocaleDateString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!scans && (
        <p class="muted" data-testid="no-scans">
          This server does not offer database connections or scans yet: fields arrive through the import API (<code>POST /api/v1/fields/import</code>).
        </p>
      )}
      {canWrite ? (
        <form class="card" onSubmit={(e) => void create(e)} aria-labelledby="ds-new">
          <h2 id="ds-new">New data source</h2>
          <label for="ds-name">Name</label>
          <input id="ds-name" required maxLength={128} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <label for="ds-type">Type</label>
          <input id="ds-type" required maxLength={64} value={type} onInput={(e) => setType((e.target as HTMLInputElement).value)} />
          <label for="ds-description">Description</label>
          <input id="ds-description" maxLength={1000} value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
          {scans && (
            <fieldset>
              <legend>Connection for scans</legend>
              <label for="ds-kind">Database</label>
              <select id="ds-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
                <option value="">None (fields come from the import API)</option>
                <option value="postgresql">PostgreSQL</option>
                <option value="mysql">MySQL or MariaDB</option>
                <option value="sqlite">SQLite file</option>
              </select>
              {kind && kind !== 'sqlite' && (
                <>
                  <label for="ds-host">Host</label>
                  <input id="ds-host" required maxLength={255} {...field('host')} />
                  <label for="ds-port">Port</label>
                  <input id="ds-port" type="number" min={1} max={65535} placeholder={kind === 'mysql' ? '3306' : '5432'} {...field('port')} />
                </>
              )}
              {kind && (
                <>
                  <label for="ds-database">{kind === 'sqlite' ? 'File (inside the folder the server allows for SQLite scans)' : 'Database name'}</label>
                  <input id="ds-database" required maxLength={1024} {...field('database')} />
                </>
              )}
              {kind && kind !== 'sqlite' && (
                <>
                  <label for="ds-user">User (read-only grants suffice)</label>
                  <input id="ds-user" maxLength={256} autoComplete="off" {...field('user')} />
                  <label for="ds-password">Password (stored encrypted, never shown again)</label>
                  <input id="ds-password" type="password" maxLength={1024} autoComplete="new-password" {...field('password')} />
                  <label for="ds-ssl">TLS</label>
                  <select id="ds-ssl" value={conn.ssl} onChange={(e) => setConn((c) => ({ ...c, ssl: (e.target as HTMLSelectElement).value }))}>
                    <option value="">Off (disable)</option>
                    <option value="require">Require</option>
                    <option value="verify-full">Verify the certificate and host (verify-full)</option>
                  </select>
                </>
              )}
              {kind && (
                <>
                  <label for="ds-include">Only these tables (patterns, comma-separated; * and ? wildcards)</label>
                  <input id="ds-include" {...field('include_tables')} />
                  <label for="ds-exclude">Skip these tables</label>
                  <input id="ds-exclude" {...field('exclude_tables')} />
                  <label for="ds-sample">Values sampled per column (0–1000, default 100)</label>
                  <input id="ds-sample" type="number" min={0} max={1000} {...field('sample_size')} />
                  <label for="ds-interval">Scan automatically every … hours (empty: only when started)</label>
                  <input id="ds-interval" type="number" min={1} max={8760} {...field('interval')} />
                </>
              )}
            </fieldset>
          )}
          <div class="buttons">
            <button type="submit" class="primary">
              Create
            </button>
          </div>
        </form>
      ) : (
        <p class="muted">Creating data sources needs the permission datasource:write.</p>
      )}
    </section>
  );
}
