/**
 * The audit log: filters a person can type (an action or a prefix like field.*, a user name, a target's name), pages,
 * export (NDJSON or CSV through an authenticated fetch), and chain verification. Each target is shown by its name.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ok, serverCapabilities, type AuditEntry } from '../api/client';
import { ProblemError, problemOf, session } from '../api/session';
import { NoPermission, ProblemNotice } from '../components/ProblemNotice';
import { StatusLine } from '../components/Status';

interface Filters {
  action: string;
  actor: string;
  target: string;
  since: string;
  until: string;
}

const EMPTY: Filters = { action: '', actor: '', target: '', since: '', until: '' };

/** The action families the service writes, offered as prefixes (the field still takes any exact action). */
const ACTION_PREFIXES = [
  'field.*',
  'auth.*',
  'user.*',
  'datasource.*',
  'scan.*',
  'tag.*',
  'taxonomy.*',
  'license.*',
  'token.*',
  'webhook.*',
];

const HINTS: Partial<Record<keyof Filters, string>> = {
  action: 'Exact, or a prefix ending in * (field.* is every field action).',
  actor: 'A user name, whole.',
  target: 'Part of a name: schema.table.column, a data source, a user, a tag.',
};

function queryOf(f: Filters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.action.trim()) q.action = f.action.trim();
  if (f.actor.trim()) q.actor = f.actor.trim();
  if (f.target.trim()) q.target = f.target.trim();
  // datetime-local has no zone: read as the browser's local time, sent as UTC.
  if (f.since) q.since = new Date(f.since).toISOString();
  if (f.until) q.until = new Date(f.until).toISOString();
  return q;
}

export function AuditPage() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const { items, next, load } = useAuditEntries(filters, setError);
  const [verify, setVerify] = useState<boolean | null>(null);
  useEffect(() => void serverCapabilities().then((c) => setVerify(c.auditVerify)), []);

  if (!session.can('audit:read')) return <NoPermission permission="audit:read" what="The audit log" />;

  const exportAs = async (format: 'ndjson' | 'csv') => {
    setError(null);
    try {
      await downloadExport(filters, format);
      setStatus(`Exported the audit log as ${format.toUpperCase()}.`);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <AuditFilters onApply={setFilters} />
      <p class="muted hint">
        <span id="audit-hint-action">Action: {HINTS.action}</span>{' '}
        <span id="audit-hint-actor">Actor: {HINTS.actor}</span>{' '}
        <span id="audit-hint-target">Target: {HINTS.target}</span> % and _ are plain characters.
      </p>
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
      <AuditTable items={items} />
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More
        </button>
      )}
    </section>
  );
}

/** The entries the filters select, a page of 100 at a time (`load(cursor)` appends the next page). */
function useAuditEntries(filters: Filters, setError: (error: unknown) => void) {
  const [items, setItems] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);

  const load = async (cursor?: string) => {
    setError(null);
    try {
      const page = await ok(
        api.GET('/api/v1/audit-logs', {
          params: { query: { ...queryOf(filters), limit: 100, ...(cursor ? { cursor } : {}) } },
        }),
      );
      setItems((current) => (cursor ? [...current, ...page.items] : page.items));
      setNext(page.next_cursor);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    if (session.can('audit:read')) void load();
  }, [filters]);
  return { items, next, load };
}

/** Downloads the filtered log through an authenticated fetch (a plain link would carry no token). */
async function downloadExport(filters: Filters, format: 'ndjson' | 'csv') {
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
}

/** The filters as typed; they apply on submit. */
function AuditFilters({ onApply }: { onApply: (filters: Filters) => void }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);

  const input = (key: keyof Filters, label: string, type: 'text' | 'datetime-local' = 'text') => (
    <label>
      {label}
      {type === 'text' ? (
        <input
          type="text"
          value={draft[key]}
          {...(key === 'action' ? { list: 'audit-actions' } : {})}
          {...(HINTS[key] ? { 'aria-describedby': `audit-hint-${key}`, title: HINTS[key] } : {})}
          onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })}
        />
      ) : (
        <input
          type="datetime-local"
          value={draft[key]}
          onInput={(e) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })}
        />
      )}
    </label>
  );

  return (
    <form
      class="filters"
      aria-label="Audit filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      {input('action', 'Action')}
      {input('actor', 'Actor')}
      {input('target', 'Target')}
      {input('since', 'Since', 'datetime-local')}
      {input('until', 'Until', 'datetime-local')}
      <button type="submit" class="primary">
        Apply
      </button>
      <datalist id="audit-actions">
        {ACTION_PREFIXES.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
    </form>
  );
}

function AuditTable({ items }: { items: AuditEntry[] }) {
  return (
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
            <td class="target">
              <Target entry={e} />
            </td>
            <td class="details">{JSON.stringify(e.details)}</td>
            <td>
              <code title={`hash ${e.hash}, previous ${e.prev_hash}`}>{e.hash.slice(0, 10)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A target by its name (a field links to its page), its data source, and its kind and short id for reference. */
function Target({ entry: e }: { entry: AuditEntry }) {
  if (!e.target_type && !e.target_id) return <>–</>;
  const name = e.target_name ?? null;
  const shortId = e.target_id ? (e.target_id.length > 12 ? `${e.target_id.slice(0, 8)}…` : e.target_id) : '';
  const label = name ?? shortId;
  return (
    <>
      {e.target_type === 'field' && e.target_id ? (
        <a href={`/fields/${e.target_id}`}>{label}</a>
      ) : (
        <span class="target-name">{label || e.target_type}</span>
      )}
      {e.target_datasource && <span class="muted"> in {e.target_datasource}</span>}
      <br />
      <span class="muted target-id" title={e.target_id ? `${e.target_type ?? ''} ${e.target_id}` : undefined}>
        {[e.target_type, name ? shortId : ''].filter(Boolean).join(' ')}
      </span>
    </>
  );
}
