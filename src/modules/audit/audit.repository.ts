/** All SQL of the audit log. Append-only: nothing here updates or deletes an entry. */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database, Queryable, Tx } from '../../db/database.js';
import type { AuditLogRow, DB } from '../../db/schema.js';
import { hashEntry, type ChainedEntry } from './audit-chain.js';

/** An entry before it joins the chain: the stored row without its chain position and hashes. */
export type NewAuditEntry = Omit<AuditLogRow, 'seq' | 'prev_hash' | 'hash'>;

/**
 * Appends entries to the chain inside the caller's transaction. The chain head row is locked
 * (advisory lock + row update) so concurrent writers on PostgreSQL still form one unbroken chain.
 */
export async function appendEntries(
  database: Database,
  trx: Tx,
  entries: readonly NewAuditEntry[],
): Promise<AuditLogRow[]> {
  if (entries.length === 0) return [];
  await database.lock(trx, 'fieldlens.audit_chain');
  const head = await trx.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  let seq = Number(head.seq);
  let prevHash = head.hash;
  const rows: AuditLogRow[] = [];
  for (const entry of entries) {
    seq += 1;
    const chained: ChainedEntry = { ...entry, seq, prev_hash: prevHash };
    const hash = hashEntry(chained);
    rows.push({ ...chained, hash });
    prevHash = hash;
  }
  // Chunked so a 500-field batch stays under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 200) {
    await trx
      .insertInto('audit_log')
      .values(rows.slice(i, i + 200))
      .execute();
  }
  await trx.updateTable('audit_head').set({ seq, hash: prevHash }).where('id', '=', 1).execute();
  return rows;
}

/** Filters of the audit list and export; `since` inclusive, `until` exclusive, both normalised ISO UTC. */
export interface AuditFilters {
  /** Exact action. */
  action?: string;
  /** Actions starting with this text (`field.` for `field.*`), compared byte by byte: no character is a wildcard. */
  actionPrefix?: string;
  actorId?: string;
  /** A user name: the entries of the user who holds it now, else those written under it (see resolveActor). */
  actorName?: string;
  /** Set by resolveActor: the id of the user who holds `actorName` now. */
  actorUserId?: string;
  targetId?: string;
  /** Text the target's current name contains (case-insensitive, no wildcards). */
  targetName?: string;
  since?: string;
  until?: string;
}

/** An entry with its target's current name, read with it (see targetNames). */
export type AuditLogEntryRow = AuditLogRow & { target_name: string | null; target_datasource: string | null };

/**
 * The smallest text greater than every text starting with `prefix`: its last code point plus one. Texts compare as
 * UTF-8 bytes (SQLite's binary collation, the "C" collation of audit_log.action on PostgreSQL), which order as code
 * points do, so `prefix <= action < upper` is exactly "action starts with prefix", and the (action, seq) index serves
 * it. Undefined when no such text exists (the prefix ends with U+10FFFF): then the lower bound alone is used.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = (points.pop() as string).codePointAt(0) as number;
    if (last < 0x10ffff) {
      // Skip the surrogate range, which has no characters of its own.
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** `text` as a LIKE pattern matching it anywhere, with `\`, `%` and `_` taken literally (escape `\`). */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const likeLower = (expr: ReturnType<typeof sql>, pattern: string) =>
  sql<boolean>`lower(${expr}) like ${pattern} escape '\\'`;

function filterConditions(eb: ExpressionBuilder<DB, 'audit_log'>, filters: AuditFilters) {
  const conditions = [];
  if (filters.action !== undefined) conditions.push(eb('audit_log.action', '=', filters.action));
  if (filters.actionPrefix !== undefined) {
    conditions.push(eb('audit_log.action', '>=', filters.actionPrefix));
    const upper = prefixUpperBound(filters.actionPrefix);
    if (upper !== undefined) conditions.push(eb('audit_log.action', '<', upper));
  }
  if (filters.actorId !== undefined) conditions.push(eb('audit_log.actor_id', '=', filters.actorId));
  if (filters.actorUserId !== undefined) conditions.push(eb('audit_log.actor_id', '=', filters.actorUserId));
  if (filters.actorName !== undefined) conditions.push(eb('audit_log.actor_username', '=', filters.actorName));
  if (filters.targetId !== undefined) conditions.push(eb('audit_log.target_id', '=', filters.targetId));
  if (filters.targetName !== undefined) conditions.push(targetNameMatches(eb, containsPattern(filters.targetName)));
  if (filters.since !== undefined) conditions.push(eb('audit_log.at', '>=', filters.since));
  if (filters.until !== undefined) conditions.push(eb('audit_log.at', '<', filters.until));
  return conditions;
}

/**
 * The targets whose current name contains the pattern: fields by `schema.table.column` or their data source's name,
 * users by user name, data sources and scans by the data source's name, tags by chain path. Each is one set of ids the
 * database builds once (a semi-join), not a lookup per entry.
 */
function targetNameMatches(eb: ExpressionBuilder<DB, 'audit_log'>, pattern: string) {
  const of = (type: string, ids: Parameters<typeof eb>[2]) =>
    eb.and([eb('audit_log.target_type', '=', type), eb('audit_log.target_id', 'in', ids)]);
  return eb.or([
    of(
      'field',
      eb
        .selectFrom('fields as f')
        .innerJoin('datasources as fd', 'fd.id', 'f.datasource_id')
        .select('f.id')
        .where((w) =>
          w.or([
            likeLower(sql`${sql.ref('f.table_name')} || '.' || ${sql.ref('f.field_name')}`, pattern),
            likeLower(sql.ref('fd.name'), pattern),
          ]),
        ),
    ),
    of(
      'user',
      eb
        .selectFrom('users as u')
        .select('u.id')
        .where(likeLower(sql.ref('u.username'), pattern)),
    ),
    of(
      'datasource',
      eb
        .selectFrom('datasources as d')
        .select('d.id')
        .where(likeLower(sql.ref('d.name'), pattern)),
    ),
    of(
      'scan',
      eb
        .selectFrom('scans as s')
        .innerJoin('datasources as sd', 'sd.id', 's.datasource_id')
        .select('s.id')
        .where(likeLower(sql.ref('sd.name'), pattern)),
    ),
    of(
      'tag',
      eb
        .selectFrom('tags as t')
        .select(sql<string>`cast(${sql.ref('t.id')} as text)`.as('id'))
        .where(likeLower(sql.ref('t.chain_path'), pattern)),
    ),
  ]);
}

/**
 * The target's name as it is now, read with the entry (the second read across table boundaries the architecture names):
 * a field's `schema.table.column` and its data source, a user's name, a data source's name, a scan's data source, a
 * tag's chain path. One primary-key lookup per entry of the page. Null when the target is gone or has no name.
 */
function targetNames(eb: ExpressionBuilder<DB, 'audit_log'>) {
  const isType = (type: string) => eb('audit_log.target_type', '=', type);
  const target = eb.ref('audit_log.target_id');
  const fieldName = eb
    .selectFrom('fields as nf')
    .select(sql<string>`${sql.ref('nf.table_name')} || '.' || ${sql.ref('nf.field_name')}`.as('n'))
    .whereRef('nf.id', '=', target);
  const fieldSource = eb
    .selectFrom('fields as nf')
    .innerJoin('datasources as nd', 'nd.id', 'nf.datasource_id')
    .select('nd.name')
    .whereRef('nf.id', '=', target);
  const scanSource = eb
    .selectFrom('scans as ns')
    .innerJoin('datasources as nd', 'nd.id', 'ns.datasource_id')
    .select('nd.name')
    .whereRef('ns.id', '=', target);
  const userName = eb.selectFrom('users as nu').select('nu.username').whereRef('nu.id', '=', target);
  const sourceName = eb.selectFrom('datasources as nd').select('nd.name').whereRef('nd.id', '=', target);
  const tagPath = eb
    .selectFrom('tags as nt')
    .select('nt.chain_path')
    .where(sql<string>`cast(${sql.ref('nt.id')} as text)`, '=', target);
  return [
    eb
      .case()
      .when(isType('field'))
      .then(fieldName)
      .when(isType('user'))
      .then(userName)
      .when(isType('datasource'))
      .then(sourceName)
      .when(isType('tag'))
      .then(tagPath)
      .else(null)
      .end()
      .as('target_name'),
    eb
      .case()
      .when(isType('field'))
      .then(fieldSource)
      .when(isType('scan'))
      .then(scanSource)
      .else(null)
      .end()
      .as('target_datasource'),
  ] as const;
}

/** Which slice of the log a page reads, in seq order. */
interface PageBounds {
  order: 'asc' | 'desc';
  /** Only entries with seq above this (asc pages). */
  afterSeq?: number;
  /** Only entries with seq below this (desc pages). */
  beforeSeq?: number;
  /** Only entries with seq at or below this (the export's head). */
  maxSeq?: number;
  limit: number;
}

function boundConditions(eb: ExpressionBuilder<DB, 'audit_log'>, page: PageBounds) {
  const conditions = [];
  if (page.afterSeq !== undefined) conditions.push(eb('audit_log.seq', '>', page.afterSeq));
  if (page.beforeSeq !== undefined) conditions.push(eb('audit_log.seq', '<', page.beforeSeq));
  if (page.maxSeq !== undefined) conditions.push(eb('audit_log.seq', '<=', page.maxSeq));
  return conditions;
}

/**
 * The distinct actions starting with `prefix`, found by a skip scan of the (action, seq) index: each step is one seek
 * to the next greater action, so the cost is the number of distinct actions (a few dozen at most), not of entries.
 */
export async function actionsWithPrefix(db: Queryable, prefix: string): Promise<string[]> {
  const upper = prefixUpperBound(prefix);
  const below = (column: ReturnType<typeof sql.ref>) => (upper === undefined ? sql`` : sql` and ${column} < ${upper}`);
  const result = await sql<{ action: string | null }>`
    with recursive found(action) as (
      select (select f.action from audit_log f where f.action >= ${prefix}${below(sql.ref('f.action'))} order by f.action limit 1)
      union all
      select (select n.action from audit_log n where n.action > found.action${below(sql.ref('n.action'))} order by n.action limit 1)
      from found where found.action is not null
    )
    select action from found where action is not null`.execute(db);
  return result.rows.map((r) => r.action as string);
}

/**
 * One page of entries matching the filters, with their targets' names. An action prefix is read as one ordered index
 * range per matching action, merged: a range of the (action, seq) index over several actions is not in seq order, and
 * sorting every entry of `field.*` (most of a log) to return 100 took seconds at 200,000 entries.
 */
async function listPage(db: Queryable, filters: AuditFilters, page: PageBounds): Promise<AuditLogEntryRow[]> {
  const resolved = await resolveActor(db, filters);
  if (resolved.actionPrefix === undefined) return selectEntries(db, resolved, page);
  const { actionPrefix, ...rest } = resolved;
  const seqs: number[] = [];
  for (const action of await actionsWithPrefix(db, actionPrefix)) {
    const rows = await db
      .selectFrom('audit_log')
      .select('audit_log.seq')
      .where((eb) => eb.and([...filterConditions(eb, { ...rest, action }), ...boundConditions(eb, page)]))
      .orderBy('audit_log.seq', page.order)
      .limit(page.limit)
      .execute();
    seqs.push(...rows.map((r) => Number(r.seq)));
  }
  seqs.sort((a, b) => (page.order === 'asc' ? a - b : b - a));
  const chosen = seqs.slice(0, page.limit);
  if (chosen.length === 0) return [];
  return db
    .selectFrom('audit_log')
    .selectAll('audit_log')
    .select((eb) => targetNames(eb))
    .where('audit_log.seq', 'in', chosen)
    .orderBy('audit_log.seq', page.order)
    .execute() as Promise<AuditLogEntryRow[]>;
}

/**
 * `actor=<name>`: the user who holds the name now, by id (all their entries, under whatever name they had then, through
 * the (actor_id, seq) index); when no user holds it (deleted, or a failed login's unknown name), the entries written
 * under it through the (actor_username, seq) index. One equality either way, so the page is read in index order.
 */
async function resolveActor(db: Queryable, filters: AuditFilters): Promise<AuditFilters> {
  if (filters.actorName === undefined) return filters;
  const { actorName, ...rest } = filters;
  const user = await db.selectFrom('users').select('id').where('username', '=', actorName).executeTakeFirst();
  if (user === undefined) return { ...rest, actorName };
  return { ...rest, actorUserId: user.id };
}

function selectEntries(db: Queryable, filters: AuditFilters, page: PageBounds): Promise<AuditLogEntryRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll('audit_log')
    .select((eb) => targetNames(eb))
    .where((eb) => eb.and([...filterConditions(eb, filters), ...boundConditions(eb, page)]))
    .orderBy('audit_log.seq', page.order)
    .limit(page.limit)
    .execute() as Promise<AuditLogEntryRow[]>;
}

/** A page of entries, newest first, strictly older than `beforeSeq` when given, with their targets' names. */
export async function listEntriesNewestFirst(
  db: Queryable,
  filters: AuditFilters,
  page: { beforeSeq?: number; limit: number },
): Promise<AuditLogEntryRow[]> {
  return listPage(db, filters, {
    order: 'desc',
    limit: page.limit,
    ...(page.beforeSeq === undefined ? {} : { beforeSeq: page.beforeSeq }),
  });
}

/** A page of entries, oldest first, with `afterSeq < seq <= maxSeq`, with their targets' names. */
export async function listEntriesOldestFirst(
  db: Queryable,
  filters: AuditFilters,
  page: { afterSeq: number; maxSeq: number; limit: number },
): Promise<AuditLogEntryRow[]> {
  return listPage(db, filters, { order: 'asc', afterSeq: page.afterSeq, maxSeq: page.maxSeq, limit: page.limit });
}

/** The chain head: the seq and hash of the last entry (0 and the genesis hash when empty). */
export async function readHead(db: Queryable): Promise<{ seq: number; hash: string }> {
  const head = await db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { seq: Number(head.seq), hash: head.hash };
}

/** Every entry after `afterSeq`, in seq order, unfiltered: what the chain check walks. */
export async function readChainPage(db: Queryable, afterSeq: number, limit: number): Promise<AuditLogRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('seq', '>', afterSeq)
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}

/**
 * How many entries of each of `actions` were written per UTC day from `since` (inclusive, ISO UTC) on. Timestamps are
 * stored as toISOString() text on both databases, so the day is their first ten characters; the (at, seq) index serves
 * the range.
 */
export async function countActionsByDay(
  db: Queryable,
  actions: readonly string[],
  since: string,
): Promise<Array<{ day: string; action: string; n: number }>> {
  const day = sql<string>`substr(at, 1, 10)`;
  const rows = await db
    .selectFrom('audit_log')
    .select([day.as('day'), 'action', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('at', '>=', since)
    .where('action', 'in', actions)
    .groupBy([day, 'action'])
    .execute();
  return rows.map((r) => ({ day: r.day, action: r.action, n: Number(r.n) }));
}
