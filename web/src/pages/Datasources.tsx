/** Data sources: the list and, for datasource:write, a form to create one. Connections and scans when the server has them. */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type Datasource } from '../api/client';
import { session } from '../api/session';
import { ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';
import { loadDatasources } from '../data';

export function DatasourcesPage() {
  const [items, setItems] = useState<Datasource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [scans, setScans] = useState(false);
  const [name, setName] = useState('');
  const [type, setType] = useState('postgresql');
  const [description, setDescription] = useState('');
  const canWrite = session.can('datasource:write');

  const reload = () => loadDatasources(true).then(setItems, setError);
  useEffect(() => {
    void reload();
    void serverCapabilities().then((c) => setScans(c.scans));
  }, []);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const created = await ok(api.POST('/api/v1/datasources', { body: { name: name.trim(), type: type.trim(), description: description.trim() || null } }));
      setStatus(`Created data source ${created.name}.`);
      setName('');
      setDescription('');
      await reload();
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
              <th scope="col">Fields</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((d) => (
              <tr key={d.id}>
                <td>
                  <a href={`/queue?datasource_id=${d.id}`}>{d.name}</a>
                  {d.is_sample && <span class="muted"> (sample)</span>}
                </td>
                <td>{d.type}</td>
                <td>{d.description ?? ''}</td>
                <td class="num">{d.field_count}</td>
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
