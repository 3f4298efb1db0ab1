/** The audit log: filters, pages, export (NDJSON or CSV through an authenticated fetch), and chain verification. */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type AuditEntry } from '../api/client';
import { ProblemError, problemOf, session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

interface Filters {
  action: string;
  actor_id: string;
  target_id: string;
  since: string;
  until: string;
}

const EMPTY: Filters = { action: '', actor_id: '', target_id: '', since: '', until: '' };

function queryOf(f: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.action.trim()) q.action = f.action.trim();
  if (f.actor_id.trim()) q.actor_id = f.actor_id.trim();
  if (f.target_id.trim()) q.target_id = f.target_id.trim();
  // datetime-local has no zone: read as the browser's local time, sent as UTC.
  if (f.since) q.since = new Date(f.since).toISOString();
  if (f.until) q.until = new Date(f.until).toISOString();
  return q;
}

export function AuditPage() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [items, setItems] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [verify, setVerify] = useState<boolean | null>(null);

  const load = async (cursor?: string) => {
    setError(null);
    try {
      const page = await ok(api.GET('/api/v1/audit-logs', { params: { query: { ...queryOf(filters), limit: 100, ...(cursor ? { cursor } : {}) } } }));
      setItems((current) => (cursor ? [...current, ...page.items] : page.items));
      setNext(page.next_cursor);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    if (session.can('audit:read')) void load();
  }, [filters]);
  useEffect(() => void serverCapabilities().then((c) => setVerify(c.auditVerify)), []);

  if (!session.can('audit:read')) return <NoPermission permission="audit:read" what="The audit log" />;

  const exportAs = async (format: 'ndjson' | 'csv') => {
    setError(null);
    try {
      const qs = new URLSearchParams({ ...queryOf(filters), format });
      const response = await session.fetch(new Request(`/api/v1/audit-logs/export?${qs.toString()}`));
      if (!response.ok) throw new ProblemError(await problemOf(response));
      const url = URL.createObjectURL(await response.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = `fieldlens-audit.${format}`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setStatus(`Exported the audit log as ${format.toUpperCase()}.`);
    } catch (e) {
      setError(e);
    }
  };

  const input = (key: keyof Filters, label: string, type: 'text' | 'datetime-local' = 'text') => (
    <label>
      {label}
      {type === 'text' ? (
        <input type="text" value={draft[key]} onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })} />
      ) : (
        <input type="datetime-local" value={draft[key]} onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })} />
      )}
    </label>
  );

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        class="filters"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        {input('action', 'Action')}
        {input('actor_id', 'Actor id')}
        {input('target_id', 'Target id')}
        {input('since', 'Since', 'datetime-local')}
        {input('until', 'Until', 'datetime-local')}
        <button type="submit" class="primary">
          Apply
        </button>
      </form>
      <div class="toolbar">
        <button type="button" onClick={() => void exportAs('ndjson')}>
          Export NDJSON
        </button>
        <button type="button" onClick={() => void exportAs('csv')}>
          Export CSV
        </button>
      </div>
      <p class="muted" data-testid="chain">
        {verify
          ? 'Chain verification is offered by this server.'
          : 'Chain verification: this server has no verification endpoint; run `fieldlens audit verify` on the server (exit 0 when the hash chain is intact, else it names the first bad entry). Each entry below shows its hash and the previous one.'}
      </p>
      <StatusLine message={status} />
      <ProblemNotice error={error} />
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Details</th>
            <th scope="col">Hash</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.seq}>
              <td class="num">{e.seq}</td>
              <td>{new Date(e.at).toLocaleString()}</td>
              <td>{e.actor_username ?? '–'}</td>
              <td>{e.action}</td>
              <td>{e.target_type === 'field' && e.target_id ? <a href={`/fields/${e.target_id}`}>{e.target_id.slice(0, 8)}…</a> : [e.target_type, e.target_id].filter(Boolean).join(' ')}</td>
              <td class="details">{JSON.stringify(e.details)}</td>
              <td>
                <code title={`hash ${e.hash}, previous ${e.prev_hash}`}>{e.hash.slice(0, 10)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More
        </button>
      )}
    </section>
  );
}
