/**
 * All SQL of the metrics module: the stored metrics, the shared queue of stale fields, the change log the
 * triggers on `fields` write, and the field rows the in-memory index is built from.
 */
import { CompiledQuery, sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, DialectKind, Kdb, Queryable } from '../../db/database.js';
import type { DB, FieldMetricsTable } from '../../db/schema.js';

export interface CatalogFieldRow {
  id: string;
  tag_id: number;
  level: string;
  review_status: 'unreviewed' | 'confirmed' | 'deferred';
  embedding: Uint8Array | null;
}

export type FieldMetricsRow = FieldMetricsTable;

/** The six raw axis values as stored. */
const RAW_COLUMNS = ['raw_category_anchor', 'raw_centroid', 'raw_peer_mean', 'raw_nearest', 'raw_lower_quartile', 'raw_farthest'] as const;

/** The stored columns a minibars item is made of, in the order findStoredMetrics reads them. */
const ITEM_COLUMNS = [
  'field_id',
  ...RAW_COLUMNS,
  'score_category_anchor',
  'score_centroid',
  'score_peer_mean',
  'score_nearest',
  'score_lower_quartile',
  'score_farthest',
  'category_similarity',
  'centroid_similarity',
  'outlier_score',
  'severity',
  'nearest_field_id',
  'nearest_field_name',
  'reason',
] as const satisfies ReadonlyArray<keyof FieldMetricsRow>;

export type StoredMetricsRow = Pick<FieldMetricsRow, (typeof ITEM_COLUMNS)[number]>;

/** Chunk size for `IN (…)` lists and multi-row inserts: well under both dialects' parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const FIELD_COLUMNS = ['id', 'tag_id', 'level', 'review_status', 'embedding'] as const;

export async function countFields(db: Queryable): Promise<number> {
  const row = await db.selectFrom('fields').select((s) => s.fn.countAll<number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** `table.field` of the given fields that still exist. */
export async function fieldNames(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of chunks(ids)) {
    for (const r of await db.selectFrom('fields').select(['id', 'table_name', 'field_name']).where('id', 'in', part).execute()) out.set(r.id, `${r.table_name}.${r.field_name}`);
  }
  return out;
}

/** One page of fields in id order (keyset), for building the in-memory index. */
export async function listCatalogFields(db: Queryable, afterId: string | null, limit: number): Promise<CatalogFieldRow[]> {
  let q = db.selectFrom('fields').select(FIELD_COLUMNS).orderBy('id').limit(limit);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return q.execute();
}

export async function findCatalogFields(db: Queryable, ids: readonly string[]): Promise<CatalogFieldRow[]> {
  const out: CatalogFieldRow[] = [];
  for (const part of chunks(ids)) out.push(...(await db.selectFrom('fields').select(FIELD_COLUMNS).where('id', 'in', part).execute()));
  return out;
}

/** Tag and level of fields as the current transaction sees them. */
export async function findClassifications(db: Queryable, ids: readonly string[]): Promise<Array<{ id: string; tag_id: number; level: string }>> {
  const out: Array<{ id: string; tag_id: number; level: string }> = [];
  for (const part of chunks(ids)) out.push(...(await db.selectFrom('fields').select(['id', 'tag_id', 'level']).where('id', 'in', part).execute()));
  return out;
}

export async function existingFieldIds(db: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of chunks(ids)) for (const r of await db.selectFrom('fields').select('id').where('id', 'in', part).execute()) out.add(r.id);
  return out;
}

/** One page of stored metrics (raw axes and margins) in field order, for the catalog distributions. */
export async function listStoredRaw(db: Queryable, afterId: string | null, limit: number) {
  let q = db
    .selectFrom('field_metrics')
    .select(['field_id', ...RAW_COLUMNS, 'peer_margin', 'anchor_margin'])
    .orderBy('field_id')
    .limit(limit);
  if (afterId !== null) q = q.where('field_id', '>', afterId);
  return q.execute();
}

/**
 * Stored metrics of the given fields, in one query per 500 ids (the nearest field's name is stored with them: no
 * join). Read as arrays and made into objects here: the drivers' objects cost more than the query (see
 * Database.selectArrays).
 */
export async function findStoredMetrics(database: Database, ids: readonly string[]): Promise<StoredMetricsRow[]> {
  const out: StoredMetricsRow[] = [];
  for (const part of chunks(ids)) {
    const query = database.db.selectFrom('field_metrics').select(ITEM_COLUMNS).where('field_id', 'in', part).compile();
    for (const values of await database.selectArrays(query)) {
      const row: Record<string, unknown> = {};
      ITEM_COLUMNS.forEach((column, i) => (row[column] = values[i]));
      out.push(row as StoredMetricsRow);
    }
  }
  return out;
}

/** Marks fields stale (or re-marks them: a new token releases any claim so the newest change is computed). */
export async function enqueue(db: Queryable, ids: readonly string[], now: string, token: string): Promise<void> {
  // In key order, so that writers marking overlapping fields lock their entries in the same order.
  for (const part of chunks([...new Set(ids)].sort())) {
    await db
      .insertInto('metrics_queue')
      .values(part.map((field_id) => ({ field_id, token, enqueued_at: now, claimed_by: null, claimed_at: null })))
      .onConflict((oc) => oc.column('field_id').doUpdateSet({ token, enqueued_at: now, claimed_by: null, claimed_at: null }))
      .execute();
  }
}

/** Enqueues every field that has neither stored metrics nor a queue entry (upgrades, bulk loads that bypass the service). */
export async function enqueueUncomputed(db: Queryable, now: string, token: string): Promise<void> {
  await db
    .insertInto('metrics_queue')
    .columns(['field_id', 'token', 'enqueued_at'])
    .expression((eb) =>
      eb
        .selectFrom('fields as f')
        .select((s) => ['f.id', s.val(token).as('token'), s.val(now).as('enqueued_at')])
        .where((w) => w.not(w.exists(w.selectFrom('field_metrics as m').select('m.field_id').whereRef('m.field_id', '=', 'f.id'))))
        .where((w) => w.not(w.exists(w.selectFrom('metrics_queue as q').select('q.field_id').whereRef('q.field_id', '=', 'f.id')))),
    )
    .onConflict((oc) => oc.column('field_id').doNothing())
    .execute();
}

/**
 * Refreshes PostgreSQL's statistics of the queue. After a bulk enqueue the planner still takes the table for small
 * and sorts the whole queue on every claim instead of reading metrics_queue_unclaimed_idx in order (77 ms per claim
 * at 100,000 queued entries, measured); autovacuum would notice only later. SQLite needs no statistics for it.
 */
export async function analyzeQueue(db: Queryable): Promise<void> {
  await sql`analyze metrics_queue`.execute(db);
}

/**
 * Claims up to `limit` queue entries for `worker`: abandoned claims (claimed before `abandonedBefore`, by a crashed
 * instance) first, then the oldest unclaimed entries. Each part reads the entries it wants in index order
 * (metrics_queue_claimed_idx, metrics_queue_unclaimed_idx), then claims them by primary key, so a claim costs the same
 * however long the queue is. The UPDATE repeats the condition: an entry another worker claimed in between fails the
 * re-check and is left to that worker. On PostgreSQL the entries are read `FOR UPDATE SKIP LOCKED` in the claim's
 * transaction: a claim never waits for an entry a writer is re-marking (a multi-row UPDATE waiting on a writer that
 * waits on it was a deadlock), and leaves it for the next round.
 */
export async function claim(db: Kdb, kind: DialectKind, worker: string, now: string, abandonedBefore: string, limit: number): Promise<Array<{ field_id: string; token: string }>> {
  return db.transaction().execute(async (trx) => {
    const abandoned = await claimWhere(trx, kind, worker, now, limit, (w) => w.and([w('claimed_at', 'is not', null), w('claimed_at', '<', abandonedBefore)]));
    if (abandoned.length >= limit) return abandoned;
    return abandoned.concat(await claimWhere(trx, kind, worker, now, limit - abandoned.length, (w) => w('claimed_at', 'is', null)));
  });
}

type QueueCondition = (w: ExpressionBuilder<DB, 'metrics_queue'>) => Expression<SqlBool>;

async function claimWhere(db: Queryable, kind: DialectKind, worker: string, now: string, limit: number, condition: QueueCondition): Promise<Array<{ field_id: string; token: string }>> {
  const query = db.selectFrom('metrics_queue').select('field_id').where(condition).orderBy('enqueued_at').orderBy('field_id').limit(limit);
  const wanted = await (kind === 'postgres' ? query.forUpdate().skipLocked() : query).execute();
  const out: Array<{ field_id: string; token: string }> = [];
  for (const part of chunks(wanted.map((r) => r.field_id))) {
    out.push(...(await db.updateTable('metrics_queue').set({ claimed_by: worker, claimed_at: now }).where(condition).where('field_id', 'in', part).returning(['field_id', 'token']).execute()));
  }
  return out;
}

/**
 * The upsert of `field_metrics` for a number of rows, as compiled SQL text by dialect, columns and row count. Kysely
 * takes ~17 ms to build and compile the query of 1,000 rows of 24 values; the text depends only on these keys.
 */
const upsertSql = new Map<string, string>();

function upsertMetrics(db: Queryable, kind: DialectKind, part: readonly FieldMetricsRow[]): Promise<unknown> {
  const first = part[0] as FieldMetricsRow;
  const columns = Object.keys(first) as Array<keyof FieldMetricsRow>;
  const key = `${kind}:${part.length}:${columns.join(',')}`;
  let text = upsertSql.get(key);
  if (text === undefined) {
    text = db
      .insertInto('field_metrics')
      .values(new Array<FieldMetricsRow>(part.length).fill(first))
      .onConflict((oc) =>
        oc.column('field_id').doUpdateSet((eb) => {
          const set: Record<string, unknown> = {};
          for (const column of columns) if (column !== 'field_id') set[column] = eb.ref(`excluded.${column}` as 'excluded.reason');
          return set as never;
        }),
      )
      .compile().sql;
    upsertSql.set(key, text);
  }
  // Kysely binds a multi-row insert row by row, in the column order of the first row.
  const parameters: unknown[] = [];
  for (const row of part) for (const column of columns) parameters.push(row[column]);
  return db.executeQuery(CompiledQuery.raw(text, parameters));
}

/** Stores computed metrics, mirrors outlier_score/severity onto the field rows, and releases the claims. */
export async function saveMetrics(db: Queryable, kind: DialectKind, rows: readonly FieldMetricsRow[], claims: ReadonlyArray<{ field_id: string; token: string }>): Promise<void> {
  for (const part of chunks(rows, 100)) await upsertMetrics(db, kind, part);
  // Copied from the rows just written, by key (a CASE per row made the statement and its evaluation O(n²)).
  for (const part of chunks(rows.map((r) => r.field_id))) {
    await db
      .updateTable('fields')
      .set((eb) => ({
        outlier_score: eb.selectFrom('field_metrics as m').select('m.outlier_score').whereRef('m.field_id', '=', 'fields.id'),
        severity: eb.selectFrom('field_metrics as m').select('m.severity').whereRef('m.field_id', '=', 'fields.id'),
      }))
      .where('id', 'in', part)
      .execute();
  }
  // Only the token computed: an entry re-enqueued during the computation has a new token and stays for the next round.
  const byToken = new Map<string, string[]>();
  for (const c of claims) {
    const ids = byToken.get(c.token);
    if (ids) ids.push(c.field_id);
    else byToken.set(c.token, [c.field_id]);
  }
  for (const [token, ids] of byToken) {
    for (const part of chunks(ids)) {
      if (kind === 'sqlite') {
        await db.deleteFrom('metrics_queue').where('token', '=', token).where('field_id', 'in', part).execute();
        continue;
      }
      // An entry locked by a writer is being re-marked (new token): it must stay anyway, so it is skipped rather
      // than waited for (waiting, while this transaction holds field rows that writer may need, can deadlock).
      await db
        .deleteFrom('metrics_queue')
        .where('field_id', 'in', (eb) => eb.selectFrom('metrics_queue').select('field_id').where('token', '=', token).where('field_id', 'in', part).forUpdate().skipLocked())
        .where('token', '=', token)
        .execute();
    }
  }
}

export async function countPending(db: Queryable): Promise<number> {
  const row = await db.selectFrom('metrics_queue').select((s) => s.fn.countAll<number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function metricsStatus(db: Queryable): Promise<{ pending: number; fields: number; last_updated_at: string | null }> {
  const pending = await countPending(db);
  const fields = await countFields(db);
  const last = await db.selectFrom('field_metrics').select((s) => s.fn.max('computed_at').as('at')).executeTakeFirst();
  return { pending, fields, last_updated_at: (last?.at as string | null | undefined) ?? null };
}

// ---------------------------------------------------------------- change log

export async function changeBounds(db: Queryable): Promise<{ min: number; max: number }> {
  const row = await db
    .selectFrom('metrics_changes')
    .select((s) => [s.fn.min('seq').as('min'), s.fn.max('seq').as('max')])
    .executeTakeFirst();
  return { min: Number(row?.min ?? 0), max: Number(row?.max ?? 0) };
}

/** Changes after `afterSeq` (up to `limit`) plus any of the listed earlier sequence numbers now visible. */
export async function readChanges(db: Queryable, afterSeq: number, gaps: readonly number[], limit: number): Promise<Array<{ seq: number; field_id: string }>> {
  const rows = await db.selectFrom('metrics_changes').select(['seq', 'field_id']).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
  const out = rows.map((r) => ({ seq: Number(r.seq), field_id: r.field_id }));
  for (const part of chunks(gaps)) {
    for (const r of await db.selectFrom('metrics_changes').select(['seq', 'field_id']).where('seq', 'in', part).execute()) out.push({ seq: Number(r.seq), field_id: r.field_id });
  }
  return out;
}

export async function existingSeqs(db: Queryable, from: number, to: number): Promise<Set<number>> {
  const rows = await db.selectFrom('metrics_changes').select('seq').where('seq', '>', from).where('seq', '<=', to).execute();
  return new Set(rows.map((r) => Number(r.seq)));
}

export async function pruneChanges(db: Queryable, belowSeq: number): Promise<void> {
  await db.deleteFrom('metrics_changes').where('seq', '<', belowSeq).execute();
}
