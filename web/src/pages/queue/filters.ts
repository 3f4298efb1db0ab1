/** The queue's filters as the address holds them: parsed from the query, written back into it, handed to the export. */

export type ReviewStatus = 'unreviewed' | 'confirmed' | 'deferred';
export type Severity = 'low' | 'medium' | 'high';
/** The orders the queue offers; `risk` falls back to the outlier score on a server without sort=risk. */
export type Sort = 'risk' | 'updated_at' | 'name';
export const SORTS: ReadonlyArray<{ value: Sort; label: string }> = [
  { value: 'risk', label: 'Risk (most suspicious first)' },
  { value: 'updated_at', label: 'Newest change' },
  { value: 'name', label: 'Name' },
];

/** The page sizes offered; any other `limit` in the address means the default, 100. */
export const PAGE_SIZES = [50, 100, 200, 500] as const;

export interface Filters {
  datasource_id?: string;
  severity?: Severity;
  level?: string;
  tag_id?: number;
  review_status?: ReviewStatus;
  q?: string;
  /** The "Changed since last scan" view: fields the last finished scan of their source created, changed or re-classified. */
  changed?: 'last_scan';
  /** The reviewer's choice of the sample data; unset: hidden once a real (non-sample) data source exists. */
  include_sample?: boolean;
  sort: Sort;
  limit: number;
  cursor?: string;
}

/** A change of the address's filters: a value sets one, `undefined` or `''` removes it. */
export type FilterChanges = Record<string, string | undefined>;

export function filtersOf(query: URLSearchParams): Filters {
  const s = (k: string) => query.get(k) || undefined;
  const tag = Number(query.get('tag_id'));
  const limit = Number(query.get('limit'));
  const status = query.get('review_status');
  const sort = query.get('sort');
  return {
    datasource_id: s('datasource_id'),
    severity: s('severity') as Severity | undefined,
    level: s('level'),
    tag_id: Number.isInteger(tag) && tag > 0 ? tag : undefined,
    // The queue opens on what still needs a decision; "any" shows everything.
    review_status: status === 'any' ? undefined : ((status || 'unreviewed') as ReviewStatus),
    q: s('q'),
    changed: query.get('changed') === 'last_scan' ? 'last_scan' : undefined,
    include_sample:
      query.get('include_sample') === 'true' ? true : query.get('include_sample') === 'false' ? false : undefined,
    sort: SORTS.some((o) => o.value === sort) ? (sort as Sort) : 'risk',
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : 100,
    cursor: s('cursor'),
  };
}

/** The queue's filters as the export's query: what the list shows, every page of it (no sort, limit or cursor). */
export function exportQuery(f: Filters, sampleShown: boolean): Record<string, string> {
  const q: Record<string, string> = { include_sample: String(f.include_sample ?? sampleShown) };
  for (const key of ['datasource_id', 'severity', 'level', 'review_status', 'q', 'changed'] as const)
    if (f[key]) q[key] = f[key];
  if (f.tag_id) q.tag_id = String(f.tag_id);
  return q;
}

/** The queue's address with `changes` applied; any change but the cursor's goes back to the first page. */
export function urlOf(query: URLSearchParams, changes: FilterChanges): string {
  const next = new URLSearchParams(query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
  }
  if (!('cursor' in changes)) next.delete('cursor');
  const qs = next.toString();
  return `/queue${qs ? `?${qs}` : ''}`;
}
