/**
 * Data sources: the list (with each one's connection), and for datasource:write a form to create one. The database kind
 * is the data source's type; a connection for scans is optional, and the form says what this server takes (from
 * GET /api/v1/datasources/connection-options): the SQLite folder, whether a password can be stored, the limits, and
 * schema and table filters. Each name opens the data source's page (test connection, scans).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type ConnectionBody, type Datasource, type Schemas } from '../api/client';
import { session } from '../api/session';
import { ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources } from '../data';
import { navigate } from '../router';

/**
 * "postgresql · db.example.com:5432/sales", then the scan's filters when it has any ("schemas sales, crm; skipping
 * tables *_backup"), or "–" for a source fed by the import API.
 */
export function describeConnection(d: Datasource): string {
  const c = d.connection;
  if (!c) return '–';
  const where =
    c.kind === 'sqlite'
      ? `sqlite · ${c.database}`
      : `${c.kind} · ${c.host ?? ''}${c.port ? `:${c.port}` : ''}/${c.database}`;
  const list = (label: string, patterns: string[] | undefined) =>
    patterns && patterns.length > 0 ? `${label} ${patterns.join(', ')}` : '';
  const filters = [
    list('schemas', c.include_schemas),
    list('skipping schemas', c.exclude_schemas),
    list('tables', c.include_tables),
    list('skipping tables', c.exclude_tables),
  ].filter(Boolean);
  return filters.length > 0 ? `${where} · ${filters.join('; ')}` : where;
}

type Kind = ConnectionBody['kind'];
type ConnectionOptions = Schemas<'/api/v1/datasources/connection-options', 'get'>;

/** What the form offers when the server cannot say (an older server without connection-options). */
const FALLBACK_KINDS: ConnectionOptions['kinds'] = [
  { kind: 'postgresql', label: 'PostgreSQL', available: true, reason: null, default_port: 5432, schemas: true },
  { kind: 'mysql', label: 'MySQL or MariaDB', available: true, reason: null, default_port: 3306, schemas: true },
  { kind: 'sqlite', label: 'SQLite file', available: true, reason: null, default_port: null, schemas: false },
];

/** Comma- or line-separated name patterns → the API's array (absent when empty). */
function patterns(text: string): string[] | undefined {
  const list = text
    .split(/[,\n]/)
    .map((p) => p.trim())
    .filter(Boolean);
  return list.length > 0 ? list : undefined;
}

const EMPTY_CONNECTION = {
  host: '',
  port: '',
  database: '',
  user: '',
  password: '',
  ssl: '',
  include_schemas: '',
  exclude_schemas: '',
  include_tables: '',
  exclude_tables: '',
  sample_size: '',
  interval: '',
};

type Connection = typeof EMPTY_CONNECTION;
type KindOption = ConnectionOptions['kinds'][number];

/** The form's connection → the API's (absent unless the form connects). */
function connectionBody(kind: Kind, current: KindOption | undefined, conn: Connection): ConnectionBody {
  const network = kind !== 'sqlite';
  const lists = {
    ...(current?.schemas
      ? { include_schemas: patterns(conn.include_schemas), exclude_schemas: patterns(conn.exclude_schemas) }
      : {}),
    include_tables: patterns(conn.include_tables),
    exclude_tables: patterns(conn.exclude_tables),
  };
  return {
    kind,
    database: conn.database.trim(),
    ...(network && conn.host.trim() ? { host: conn.host.trim() } : {}),
    ...(network && conn.port ? { port: Number(conn.port) } : {}),
    ...(network && conn.user.trim() ? { user: conn.user.trim() } : {}),
    ...(network && conn.password ? { password: conn.password } : {}),
    ...(network && conn.ssl ? { ssl: conn.ssl as NonNullable<ConnectionBody['ssl']> } : {}),
    ...Object.fromEntries(Object.entries(lists).filter(([, v]) => v !== undefined)),
    ...(conn.sample_size ? { sample_size: Number(conn.sample_size) } : {}),
  };
}

/** The list, whether this server scans, and (for datasource:write) what its connections take. */
function useDatasources(canWrite: boolean) {
  const [items, setItems] = useState<Datasource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [scans, setScans] = useState(false);
  const [options, setOptions] = useState<ConnectionOptions | null>(null);

  const reload = () => loadDatasources(true).then(setItems, setError);
  useEffect(() => {
    void reload();
    void serverCapabilities().then((c) => setScans(c.scans));
    // What this server takes (the SQLite folder, whether a password can be stored, the limits); the form guides by it.
    if (canWrite)
      void api.GET('/api/v1/datasources/connection-options').then(
        (r) => r.data && setOptions(r.data),
        () => undefined,
      );
  }, []);
  return { items, error, setError, scans, options, reload };
}

export function DatasourcesPage() {
  const [status, setStatus] = useState('');
  const canWrite = session.can('datasource:write');
  const { items, error, setError, scans, options, reload } = useDatasources(canWrite);

  return (
    <section aria-labelledby="ds-title">
      <h1 id="ds-title">Data sources</h1>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      {items && <DatasourceTable items={items} scans={scans} />}
      {!scans && (
        <p class="muted" data-testid="no-scans">
          This server does not offer database connections or scans yet: fields arrive through the import API (
          <code>POST /api/v1/fields/import</code>).
        </p>
      )}
      {canWrite ? (
        <NewDatasourceForm scans={scans} options={options} onError={setError} onStatus={setStatus} reload={reload} />
      ) : (
        <p class="muted">Creating data sources needs the permission datasource:write.</p>
      )}
    </section>
  );
}

function DatasourceTable({ items, scans }: { items: Datasource[]; scans: boolean }) {
  return (
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
              <a
                href={`/queue?datasource_id=${d.id}`}
                aria-label={`${d.field_count} fields of ${d.name} in the review queue`}
              >
                {d.field_count}
              </a>
            </td>
            <td>{new Date(d.created_at).toLocaleDateString()}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Hint({ id, text }: { id: string; text: string }) {
  return (
    <p id={id} class="muted hint">
      {text}
    </p>
  );
}

interface NewDatasourceFormProps {
  scans: boolean;
  options: ConnectionOptions | null;
  onError: (error: unknown) => void;
  onStatus: (message: string) => void;
  reload: () => Promise<void>;
}

function NewDatasourceForm({ scans, options, onError, onStatus, reload }: NewDatasourceFormProps) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [kind, setKind] = useState<Kind>('postgresql');
  const [connect, setConnect] = useState(false);
  const [conn, setConn] = useState(EMPTY_CONNECTION);

  const kinds = options?.kinds ?? FALLBACK_KINDS;
  const current = kinds.find((k) => k.kind === kind) ?? kinds[0];
  const limits = options?.limits;
  const canConnect = scans && (current?.available ?? true);
  const connecting = connect && canConnect;

  const create = async (e: Event) => {
    e.preventDefault();
    onError(null);
    try {
      const connection = connecting ? connectionBody(kind, current, conn) : undefined;
      const created = await ok(
        api.POST('/api/v1/datasources', {
          body: {
            name: name.trim(),
            // The database kind is the data source's type: one choice, not two that could disagree.
            type: kind,
            description: description.trim() || null,
            ...(connection ? { connection } : {}),
            ...(connection && conn.interval ? { scan_interval_hours: Number(conn.interval) } : {}),
          },
        }),
      );
      onStatus(`Created data source ${created.name}.`);
      setName('');
      setDescription('');
      // The password leaves the page's memory once sent.
      setConn((c) => ({ ...c, password: '' }));
      await reload();
      // A source with a connection is created to be tested and scanned: go to its page.
      if (created.connection) navigate(`/datasources/${created.id}`);
    } catch (err) {
      onError(err);
    }
  };

  return (
    <form class="card" onSubmit={(e) => void create(e)} aria-labelledby="ds-new">
      <h2 id="ds-new">New data source</h2>
      <label for="ds-name">Name</label>
      <input
        id="ds-name"
        required
        maxLength={limits?.name_length.max ?? 128}
        value={name}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
      />
      <label for="ds-kind">Database</label>
      <select
        id="ds-kind"
        value={kind}
        aria-describedby={current?.available ? undefined : 'ds-kind-hint'}
        onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}
      >
        {kinds.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      {scans && current && !current.available && current.reason && (
        <Hint id="ds-kind-hint" text={`${current.reason}. Its fields can still arrive through the import API.`} />
      )}
      <label for="ds-description">Description</label>
      <input
        id="ds-description"
        maxLength={1000}
        value={description}
        onInput={(e) => setDescription((e.target as HTMLInputElement).value)}
      />
      {canConnect && (
        <div class="check">
          <input
            id="ds-connect"
            type="checkbox"
            checked={connect}
            onChange={(e) => setConnect((e.target as HTMLInputElement).checked)}
          />
          <label for="ds-connect">Connect to it for scans (else its fields come from the import API)</label>
        </div>
      )}
      {connecting && (
        <ConnectionFieldset kind={kind} current={current} options={options} conn={conn} setConn={setConn} />
      )}
      <div class="buttons">
        <button type="submit" class="primary">
          Create
        </button>
      </div>
    </form>
  );
}

interface ConnectionFieldsProps {
  kind: Kind;
  current: KindOption | undefined;
  options: ConnectionOptions | null;
  conn: Connection;
  setConn: (update: (c: Connection) => Connection) => void;
}

/** Binds an input to one of the connection's texts. */
function bindField(conn: Connection, setConn: ConnectionFieldsProps['setConn']) {
  return (key: keyof Connection) => ({
    value: conn[key],
    onInput: (e: Event) => setConn((c) => ({ ...c, [key]: (e.target as HTMLInputElement).value })),
  });
}

function ConnectionFieldset(props: ConnectionFieldsProps) {
  const { kind, options, conn, setConn } = props;
  const limits = options?.limits;
  const field = bindField(conn, setConn);
  return (
    <fieldset>
      <legend>Connection for scans</legend>
      {kind !== 'sqlite' && <NetworkFields {...props} />}
      {kind === 'sqlite' && (
        <>
          <label for="ds-database">File</label>
          <input id="ds-database" required maxLength={1024} aria-describedby="ds-file-hint" {...field('database')} />
          <Hint
            id="ds-file-hint"
            text={
              options?.sqlite_dir
                ? `A path inside ${options.sqlite_dir}, the folder this server allows SQLite files in (absolute, or relative to it).`
                : 'A path inside the folder this server allows SQLite files in (FIELDLENS_SCAN_SQLITE_DIR).'
            }
          />
        </>
      )}
      <FilterFields {...props} />
      <label for="ds-sample">
        Values sampled per column ({limits?.sample_size.min ?? 0}–{limits?.sample_size.max ?? 1000}, default{' '}
        {limits?.sample_size.default ?? 100})
      </label>
      <input
        id="ds-sample"
        type="number"
        min={limits?.sample_size.min ?? 0}
        max={limits?.sample_size.max ?? 1000}
        {...field('sample_size')}
      />
      <label for="ds-interval">Scan automatically every … hours (empty: only when started)</label>
      <input
        id="ds-interval"
        type="number"
        min={limits?.scan_interval_hours.min ?? 1}
        max={limits?.scan_interval_hours.max ?? 8760}
        {...field('interval')}
      />
    </fieldset>
  );
}

/** Host, port, database, user, password and TLS: the connection to a database server. */
function NetworkFields({ current, options, conn, setConn }: ConnectionFieldsProps) {
  const field = bindField(conn, setConn);
  return (
    <>
      <label for="ds-host">Host</label>
      <input id="ds-host" required maxLength={255} {...field('host')} />
      <label for="ds-port">Port</label>
      <input
        id="ds-port"
        type="number"
        min={1}
        max={65535}
        placeholder={String(current?.default_port ?? '')}
        {...field('port')}
      />
      <label for="ds-database">Database name</label>
      <input id="ds-database" required maxLength={1024} {...field('database')} />
      <label for="ds-user">User (read-only grants suffice)</label>
      <input id="ds-user" maxLength={256} autoComplete="off" {...field('user')} />
      <label for="ds-password">Password (stored encrypted, never shown again)</label>
      <input
        id="ds-password"
        type="password"
        maxLength={1024}
        autoComplete="new-password"
        disabled={options?.passwords === false}
        aria-describedby={options?.passwords === false ? 'ds-password-hint' : undefined}
        {...field('password')}
      />
      {options?.passwords === false && (
        <Hint
          id="ds-password-hint"
          text="This server stores no passwords: its operator has not set a secret key (FIELDLENS_SECRET_KEY). Use a user without one, or ask them."
        />
      )}
      <label for="ds-ssl">TLS</label>
      <select
        id="ds-ssl"
        value={conn.ssl}
        onChange={(e) => setConn((c) => ({ ...c, ssl: (e.target as HTMLSelectElement).value }))}
      >
        <option value="">Off (disable)</option>
        <option value="require">Require</option>
        <option value="verify-full">Verify the certificate and host (verify-full)</option>
      </select>
    </>
  );
}

/** Which schemas and tables a scan reads. */
function FilterFields({ current, options, conn, setConn }: ConnectionFieldsProps) {
  const field = bindField(conn, setConn);
  return (
    <>
      <p id="ds-patterns-hint" class="muted hint">
        Filters are optional, comma-separated. {options?.patterns ?? '* matches any run of characters, ? one.'}
      </p>
      {current?.schemas && (
        <>
          <label for="ds-include-schemas">Only these schemas</label>
          <input
            id="ds-include-schemas"
            placeholder="sales, crm"
            aria-describedby="ds-patterns-hint"
            {...field('include_schemas')}
          />
          <label for="ds-exclude-schemas">Skip these schemas</label>
          <input
            id="ds-exclude-schemas"
            placeholder="tmp_*"
            aria-describedby="ds-patterns-hint"
            {...field('exclude_schemas')}
          />
        </>
      )}
      <label for="ds-include">Only these tables</label>
      <input
        id="ds-include"
        placeholder={current?.schemas ? 'customers, sales.orders_*' : 'customers, orders_*'}
        aria-describedby="ds-patterns-hint"
        {...field('include_tables')}
      />
      <label for="ds-exclude">Skip these tables</label>
      <input id="ds-exclude" placeholder="*_backup" aria-describedby="ds-patterns-hint" {...field('exclude_tables')} />
    </>
  );
}
