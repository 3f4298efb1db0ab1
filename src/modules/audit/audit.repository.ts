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
export async function appendEntries(database: Database, trx: Tx, entries: readonly NewAuditEntry[]): Promise<AuditLogRow[]> {
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
    await trx.insertInto('audit_log').values(rows.slice(i, i + 200)).execute();
  }
  await trx.updateTable('audit_head').set({ seq, hash: prevHash }).where('id', '=', 1).execute();
  return rows;
}

/** Filters of the audit list and export; `since` inclusive, `until` exclusive, both normalised ISO UTC. */
export interface AuditFilters {
  action?: string;
  actorId?: string;
  targetId?: string;
  since?: string;
  until?: string;
}

function filterConditions(eb: ExpressionBuilder<DB, 'audit_log'>, filters: AuditFilters) {
  const conditions = [];
  if (filters.action !== undefined) conditions.push(eb('action', '=', filters.action));
  if (filters.actorId !== undefined) conditions.push(eb('actor_id', '=', filters.actorId));
  if (filters.targetId !== undefined) conditions.push(eb('target_id', '=', filters.targetId));
  if (filters.since !== undefined) conditions.push(eb('at', '>=', filters.since));
  if (filters.until !== undefined) conditions.push(eb('at', '<', filters.until));
  return conditions;
}

/** A page of entries, newest first, strictly older than `beforeSeq` when given. */
export async function listEntriesNewestFirst(
  db: Queryable,
  filters: AuditFilters,
  page: { beforeSeq?: number; limit: number },
): Promise<AuditLogRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => {
      const conditions = filterConditions(eb, filters);
      if (page.beforeSeq !== undefined) conditions.push(eb('seq', '<', page.beforeSeq));
      return eb.and(conditions);
    })
    .orderBy('seq', 'desc')
    .limit(page.limit)
    .execute();
}

/** A page of entries, oldest first, with `afterSeq < seq <= maxSeq`. */
export async function listEntriesOldestFirst(
  db: Queryable,
  filters: AuditFilters,
  page: { afterSeq: number; maxSeq: number; limit: number },
): Promise<AuditLogRow[]> {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.and([...filterConditions(eb, filters), eb('seq', '>', page.afterSeq), eb('seq', '<=', page.maxSeq)]))
    .orderBy('seq', 'asc')
    .limit(page.limit)
    .execute();
}

/** The chain head: the seq and hash of the last entry (0 and the genesis hash when empty). */
export async function readHead(db: Queryable): Promise<{ seq: number; hash: string }> {
  const head = await db.selectFrom('audit_head').select(['seq', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
  return { seq: Number(head.seq), hash: head.hash };
}

/** Every entry after `afterSeq`, in seq order, unfiltered: what the chain check walks. */
export async function readChainPage(db: Queryable, afterSeq: number, limit: number): Promise<AuditLogRow[]> {
  return db.selectFrom('audit_log').selectAll().where('seq', '>', afterSeq).orderBy('seq', 'asc').limit(limit).execute();
}

/**
 * How many entries of each of `actions` were written per UTC day from `since` (inclusive, ISO UTC) on. Timestamps are
 * stored as toISOString() text on both databases, so the day is their first ten characters; the (at, seq) index serves
 * the range.
 */
export async function countActionsByDay(db: Queryable, actions: readonly string[], since: string): Promise<Array<{ day: string; action: string; n: number }>> {
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
