/**
 * All SQL of the metrics module's tables: the stored metrics (`field_metrics`), the queue of stale fields
 * (`metrics_queue`, worked through src/db/work-queue.ts) and the catalog change log the triggers write
 * (`catalog_changes`). The `fields` table is the fields module's: this module reads and writes it through its service.
 */
import { CompiledQuery, sql } from 'kysely';
import type { Database, DialectKind, Queryable, Tx } from '../../db/database.js';
import type { FieldMetricsTable } from '../../db/schema.js';
import { RAW_COLUMNS, SCORE_COLUMNS } from './axes.js';

export type FieldMetricsRow = FieldMetricsTable;

/** The stored columns a minibars item is made of, in the order findStoredMetrics reads them. */
const ITEM_COLUMNS = [
  'field_id',
  ...RAW_COLUMNS,
  ...SCORE_COLUMNS,
  'category_similarity',
  'centroid_similarity',
  'outlier_score',
  'severity',
  'nearest_field_id',
  'nearest_field_name',
  'reason',
  'suggested_tag_id',
  'suggested_level',
  'suggested_confidence',
] as const satisfies ReadonlyArray<keyof FieldMetricsRow>;

export type StoredMetricsRow = Pick<FieldMetricsRow, (typeof ITEM_COLUMNS)[number]>;

/** Chunk size for `IN (…)` lists and multi-row inserts: well under both dialects' parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
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

/** The stored confirmed-field basis of the given fields (absent or null: none). */
export async function findConfirmedBasis(db: Queryable, ids: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const part of chunks(ids)) {
    for (const r of await db
      .selectFrom('field_metrics')
      .select(['field_id', 'confirmed_basis'])
      .where('field_id', 'in', part)
      .execute())
      out.set(r.field_id, r.confirmed_basis);
  }
  return out;
}

/** The fields whose stored metrics name one of `ids` as their nearest field. */
export async function fieldsNamingNearest(db: Queryable, ids: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const part of chunks(ids)) {
    for (const r of await db
      .selectFrom('field_metrics')
      .select('field_id')
      .where('nearest_field_id', 'in', part)
      .execute())
      out.push(r.field_id);
  }
  return out;
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
        .where((w) =>
          w.not(w.exists(w.selectFrom('field_metrics as m').select('m.field_id').whereRef('m.field_id', '=', 'f.id'))),
        )
        .where((w) =>
          w.not(w.exists(w.selectFrom('metrics_queue as q').select('q.field_id').whereRef('q.field_id', '=', 'f.id'))),
        ),
    )
    .onConflict((oc) => oc.column('field_id').doNothing())
    .execute();
}

/** Enqueues every field (a change too large to expand field by field: a bulk load). */
export async function enqueueAll(db: Queryable, now: string, token: string): Promise<void> {
  await db
    .insertInto('metrics_queue')
    .columns(['field_id', 'token', 'enqueued_at'])
    // The WHERE keeps SQLite from reading ON CONFLICT as a join condition of the SELECT.
    .expression((eb) =>
      eb
        .selectFrom('fields as f')
        .select((s) => ['f.id', s.val(token).as('token'), s.val(now).as('enqueued_at')])
        .where(sql<boolean>`true`),
    )
    .onConflict((oc) =>
      oc.column('field_id').doUpdateSet({ token, enqueued_at: now, claimed_by: null, claimed_at: null }),
    )
    .execute();
}

/**
 * The upsert of `field_metrics` for a number of rows, as compiled SQL text by dialect, columns and row count: building
 * and compiling the query of a large batch costs more than running it, and the text depends only on these keys.
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
          for (const column of columns)
            if (column !== 'field_id') set[column] = eb.ref(`excluded.${column}` as 'excluded.reason');
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

/** Stores computed metrics (in id order: the lock order of every writer). */
export async function saveMetrics(db: Queryable, kind: DialectKind, rows: readonly FieldMetricsRow[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => (a.field_id < b.field_id ? -1 : a.field_id > b.field_id ? 1 : 0));
  for (const part of chunks(sorted, 100)) await upsertMetrics(db, kind, part);
}

/** When metrics were last written, or null before the first. */
export async function lastComputedAt(db: Queryable): Promise<string | null> {
  const last = await db
    .selectFrom('field_metrics')
    .select((s) => s.fn.max('computed_at').as('at'))
    .executeTakeFirst();
  return (last?.at as string | null | undefined) ?? null;
}

// ---------------------------------------------------------------- the catalog change log

export interface CatalogChange {
  seq: number;
  field_id: string | null;
  tag_id: number | null;
  level: string | null;
  old_tag_id: number | null;
  old_level: string | null;
}

const CHANGE_COLUMNS = ['seq', 'field_id', 'tag_id', 'level', 'old_tag_id', 'old_level'] as const;

function toChange(r: CatalogChange): CatalogChange {
  return { ...r, seq: Number(r.seq) };
}

export async function changeBounds(db: Queryable): Promise<{ min: number; max: number }> {
  const row = await db
    .selectFrom('catalog_changes')
    .select((s) => [s.fn.min('seq').as('min'), s.fn.max('seq').as('max')])
    .executeTakeFirst();
  return { min: Number(row?.min ?? 0), max: Number(row?.max ?? 0) };
}

/** Changes after `afterSeq` (up to `limit`) plus any of the listed earlier sequence numbers now visible. */
export async function readChanges(
  db: Queryable,
  afterSeq: number,
  gaps: readonly number[],
  limit: number,
): Promise<CatalogChange[]> {
  const rows = await db
    .selectFrom('catalog_changes')
    .select(CHANGE_COLUMNS)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  const out = rows.map(toChange);
  for (const part of chunks(gaps)) {
    for (const r of await db.selectFrom('catalog_changes').select(CHANGE_COLUMNS).where('seq', 'in', part).execute())
      out.push(toChange(r));
  }
  return out;
}

export async function existingSeqs(db: Queryable, from: number, to: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('catalog_changes')
    .select('seq')
    .where('seq', '>', from)
    .where('seq', '<=', to)
    .execute();
  return new Set(rows.map((r) => Number(r.seq)));
}

/** Drops expanded changes below `belowSeq` (an unexpanded one is kept whatever its age). */
export async function pruneChanges(db: Queryable, belowSeq: number): Promise<void> {
  await db.deleteFrom('catalog_changes').where('seq', '<', belowSeq).where('expanded', '=', 1).execute();
}

/** The oldest changes whose effects have not been enqueued yet. */
export async function readUnexpanded(db: Queryable, limit: number): Promise<CatalogChange[]> {
  const rows = await db
    .selectFrom('catalog_changes')
    .select(CHANGE_COLUMNS)
    .where('expanded', '=', 0)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(toChange);
}

export async function countUnexpanded(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('catalog_changes')
    .select((s) => s.fn.countAll<number>().as('n'))
    .where('expanded', '=', 0)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * How many fields are stale: queued, or named by a change not yet expanded (a deleted field counts once, for the
 * fields that named it), or holding a tag changed since. Only the queue is counted when every change is expanded.
 */
export async function countStale(db: Queryable): Promise<number> {
  if ((await countUnexpanded(db)) === 0) {
    const row = await db
      .selectFrom('metrics_queue')
      .select((s) => s.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const changedTags = (
    await db
      .selectFrom('catalog_changes')
      .select('tag_id')
      .distinct()
      .where('expanded', '=', 0)
      .where('field_id', 'is', null)
      .execute()
  )
    .map((r) => r.tag_id)
    .filter((t): t is number => t !== null);
  let stale = db
    .selectFrom('metrics_queue')
    .select('field_id as id')
    .union(
      db
        .selectFrom('catalog_changes')
        .select('field_id as id')
        .where('expanded', '=', 0)
        .where('field_id', 'is not', null) as never,
    );
  // The fields of changed tags, through the tag index (usually there is no tag change at all).
  if (changedTags.length > 0)
    stale = stale.union(db.selectFrom('fields').select('id').where('tag_id', 'in', changedTags) as never);
  const row = await db
    .selectFrom(stale.as('stale'))
    .select((s) => s.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function markExpanded(db: Queryable, seqs: readonly number[]): Promise<void> {
  for (const part of chunks([...seqs].sort((a, b) => a - b)))
    await db
      .updateTable('catalog_changes')
      .set({ expanded: 1 })
      .where('seq', 'in', part)
      .where('expanded', '=', 0)
      .execute();
}

/** Marks every change up to `maxSeq` expanded (after enqueueing the whole catalog). */
export async function markExpandedUpTo(db: Queryable, maxSeq: number): Promise<void> {
  await db
    .updateTable('catalog_changes')
    .set({ expanded: 1 })
    .where('expanded', '=', 0)
    .where('seq', '<=', maxSeq)
    .execute();
}

/** Stored suggestions naming one of the tags name `toTagId` instead (a tag deleted with a replacement), or none (null). */
export async function retargetSuggestions(
  trx: Tx,
  fromTagIds: readonly number[],
  toTagId: number | null,
): Promise<void> {
  if (fromTagIds.length === 0) return;
  const change =
    toTagId === null
      ? { suggested_tag_id: null, suggested_level: null, suggested_confidence: null }
      : { suggested_tag_id: toTagId };
  await trx.updateTable('field_metrics').set(change).where('suggested_tag_id', 'in', fromTagIds).execute();
}
