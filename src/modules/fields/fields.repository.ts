/**
 * All SQL of the `fields` table, which no other module writes: the upsert of an import, the review columns, the
 * deletion of a data source's fields, the outlier score mirrored from the metrics, reads and the keyset-paginated list.
 *
 * Lock order: every statement that locks several field rows locks them in ascending id order (chunks sorted by id,
 * rows locked by an ordered SELECT … FOR UPDATE on PostgreSQL), so two writers never wait for each other in a cycle.
 * Upserts (imports, scans) find rows by key, so they first lock the existing rows they will update in id order
 * (lockExistingInIdOrder), and their INSERT … ON CONFLICT then only updates rows the transaction already holds.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { isForeignKeyViolation, isPostgres, type Queryable, type Tx } from '../../db/database.js';
import type { ClassificationSource, DB, FieldRow, NewFieldRow, ScanChange } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';
import { AUTOMATIC_SOURCES, type FieldSort } from './fields.schemas.js';

/**
 * A field as the API shows it: the columns its answer needs (not the embedding, the value summary or the review
 * bookkeeping: a 500-row page reads and copies only what it sends), plus its tag's chain path.
 */
export type FieldListRow = Pick<
  FieldRow,
  (typeof FIELD_COLUMNS)[number] extends `fields.${infer C extends keyof FieldRow}` ? C : never
> & {
  classification_chain_path: string;
  suggested_chain_path: string | null;
};

export interface FieldFilter {
  datasource_id?: string;
  review_status?: FieldRow['review_status'];
  severity?: NonNullable<FieldRow['severity']>;
  level?: string;
  tag_id?: number;
  q?: string;
  /** Only fields last written by one of these scans (the last finished scan of each data source). */
  last_scan_ids?: readonly string[];
  /** Leave out the fields of these data sources (the built-in sample catalog). */
  exclude_datasource_ids?: readonly string[];
}

/** Where the previous page ended: its last row's sort key and id. */
export interface FieldKeyset {
  value: string | number | null;
  id: string;
}

/**
 * Rows per INSERT: each row binds ~20 parameters, so 500 rows stay far below SQLite's limit of
 * 32,766 bound parameters (and PostgreSQL's 65,535).
 */
export const UPSERT_CHUNK_ROWS = 500;

const FIELD_COLUMNS = [
  'fields.id',
  'fields.datasource_id',
  'fields.table_name',
  'fields.field_name',
  'fields.data_type',
  'fields.comment',
  'fields.tag_id',
  'fields.level',
  'fields.locked',
  'fields.review_status',
  'fields.outlier_score',
  'fields.severity',
  'fields.classification_source',
  'fields.classification_confidence',
  'fields.classification_evidence',
  'fields.suggested_tag_id',
  'fields.suggested_level',
  'fields.suggested_confidence',
  'fields.risk',
  'fields.last_scan_id',
  'fields.scan_change',
  'fields.created_at',
  'fields.updated_at',
] as const;

function selectFields(db: Queryable) {
  return db
    .selectFrom('fields')
    .innerJoin('tags', 'tags.id', 'fields.tag_id')
    .leftJoin('tags as suggested', 'suggested.id', 'fields.suggested_tag_id')
    .select(FIELD_COLUMNS)
    .select(['tags.chain_path as classification_chain_path', 'suggested.chain_path as suggested_chain_path']);
}

export async function findFieldById(db: Queryable, id: string): Promise<FieldListRow | undefined> {
  return selectFields(db).where('fields.id', '=', id).executeTakeFirst();
}

/**
 * Inserts or updates on (datasource_id, table_name, field_name), in chunks. A locked field keeps its classification,
 * and so does one given by an import or a reviewer when the new row was only classified automatically; a field whose
 * classification changes goes back to `unreviewed`.
 * Returns the stored id of every row (an updated row keeps its original id).
 */
/** An existing field keeps its classification on re-import: locked, or given by a person and now only guessed. */
/** `classification_source in (…)` of the sources FieldLens gave itself (AUTOMATIC_SOURCES). */
const AUTOMATIC = sql.raw(`(${AUTOMATIC_SOURCES.map((s) => `'${s}'`).join(', ')})`);
const KEEP = sql`(fields.locked = 1 or (excluded.classification_source in ${AUTOMATIC} and fields.classification_source not in ${AUTOMATIC}))`;

/** The classification columns of an upsert: the stored ones where `keep` holds, else the incoming ones. */
function classificationUnless(keep: RawBuilder<unknown>) {
  const pick = <T>(column: keyof FieldRow) =>
    sql<T>`case when ${keep} then ${sql.ref(`fields.${column}`)} else ${sql.ref(`excluded.${column}`)} end`;
  return {
    tag_id: pick<number>('tag_id'),
    level: pick<string>('level'),
    classification_source: pick<ClassificationSource>('classification_source'),
    classification_confidence: pick<number | null>('classification_confidence'),
    classification_evidence: pick<string | null>('classification_evidence'),
    classified_with: pick<string | null>('classified_with'),
  };
}

/**
 * Row-locks (PostgreSQL; SQLite serialises writers) the existing fields an upsert of `rows` will update, in ascending
 * id order: the upsert itself meets them in key order, which a reviewer's batch (id order) would cross.
 */
async function lockExistingInIdOrder(db: Queryable, rows: readonly NewFieldRow[]): Promise<void> {
  if (rows.length === 0 || !isPostgres(db)) return;
  const byDatasource = new Map<string, NewFieldRow[]>();
  for (const row of rows) {
    let list = byDatasource.get(row.datasource_id);
    if (!list) byDatasource.set(row.datasource_id, (list = []));
    list.push(row);
  }
  const ids: string[] = [];
  for (const [datasourceId, list] of byDatasource) {
    for (let start = 0; start < list.length; start += CHUNK) {
      const part = list.slice(start, start + CHUNK);
      const found = await db
        .selectFrom('fields')
        .select('id')
        .where('datasource_id', '=', datasourceId)
        .where((eb) =>
          eb(
            eb.refTuple('table_name', 'field_name'),
            'in',
            part.map((r) => eb.tuple(r.table_name, r.field_name)),
          ),
        )
        .execute();
      for (const f of found) ids.push(f.id);
    }
  }
  for (const part of sortedChunks(ids)) {
    await db.selectFrom('fields').select('id').where('id', 'in', part).orderBy('id').forNoKeyUpdate().execute();
  }
}

export async function upsertFields(
  db: Queryable,
  rows: readonly NewFieldRow[],
): Promise<Array<{ id: string; table_name: string; field_name: string }>> {
  const stored: Array<{ id: string; table_name: string; field_name: string }> = [];
  await lockExistingInIdOrder(db, rows);
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK_ROWS) {
    const chunk = rows.slice(start, start + UPSERT_CHUNK_ROWS);
    try {
      const result = await db
        .insertInto('fields')
        .values(chunk)
        .onConflict((oc) =>
          oc.columns(['datasource_id', 'table_name', 'field_name']).doUpdateSet((eb) => ({
            data_type: eb.ref('excluded.data_type'),
            comment: eb.ref('excluded.comment'),
            format_signature: eb.ref('excluded.format_signature'),
            embedding: eb.ref('excluded.embedding'),
            embedder_version: eb.ref('excluded.embedder_version'),
            ...classificationUnless(KEEP),
            value_summary: eb.ref('excluded.value_summary'),
            predicted_tag_id: eb.ref('excluded.predicted_tag_id'),
            predicted_level: eb.ref('excluded.predicted_level'),
            predicted_confidence: eb.ref('excluded.predicted_confidence'),
            predicted_with: eb.ref('excluded.predicted_with'),
            // The gap was measured against the incoming label: unknown when the stored one is kept and differs
            // (queued for the re-classification worker by enqueueUnknownLabelGaps).
            predicted_label_gap: sql<
              number | null
            >`case when ${KEEP} and fields.tag_id <> excluded.tag_id then null else excluded.predicted_label_gap end`,
            review_status: sql<
              FieldRow['review_status']
            >`case when not (${KEEP}) and (fields.tag_id <> excluded.tag_id or fields.level <> excluded.level) then 'unreviewed' else fields.review_status end`,
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returning(['id', 'table_name', 'field_name'])
        .execute();
      stored.push(...result);
    } catch (error) {
      // The data source was deleted by someone else between the check and this write.
      if (isForeignKeyViolation(error)) throw notFound('Data source');
      throw error;
    }
  }
  return stored;
}

/**
 * The filters as WHERE terms. SQLite (which keeps no statistics here) takes an index that serves an equality and the
 * order over one that serves only an equality, whatever their selectivity: given `review_status` and `tag_id` in name
 * order it walked the (review_status, name) index past ~70 % of the catalog for the 1/60 of a tag. When a selective
 * filter is present (a tag, the last scan's fields, a name substring), the broad ones (review status, level, severity, data source) are
 * written `+column = ?`, which SQLite does not use an index for: it reads the selective index and sorts its few rows.
 * Without a selective filter, in the outlier-score order (`walkOrder`: the API's order, whose only index is the bare
 * one, migration 0026) they are written so too: SQLite walks that index and skips what they do not match, where it
 * would otherwise read a broad filter's index and sort most of the catalog (`review_status=unreviewed`: 8 → 131 ms
 * at 100k). PostgreSQL weighs its statistics and gets the plain terms.
 */
function applyFilter<TB extends 'fields' | 'tags', O>(
  query: SelectQueryBuilder<DB, TB, O>,
  filter: FieldFilter,
  sqlite: boolean,
  how: { keyOrder?: boolean; frequentQ?: boolean; walkOrder?: boolean } = {},
) {
  let q = query;
  const selective =
    sqlite &&
    (filter.tag_id !== undefined ||
      filter.last_scan_ids !== undefined ||
      (filter.q !== undefined && usesTrigrams(filter.q) && !how.frequentQ));
  // In the export's catalog-key order (keyOrder), the natural-key index (datasource_id, table_name, field_name) serves
  // both the order and a data-source filter; an index on a broad filter would make SQLite sort everything after the
  // keyset again for every page (quadratic over an export), so those filters are only checked on the rows it reads.
  const unindexed = (column: 'review_status' | 'level' | 'severity' | 'datasource_id') =>
    selective || (sqlite && how.walkOrder === true) || (sqlite && how.keyOrder === true && column !== 'datasource_id');
  const broad = (column: 'review_status' | 'level' | 'severity' | 'datasource_id') =>
    unindexed(column) ? sql<string>`+${sql.ref(`fields.${column}`)}` : sql.ref<string>(`fields.${column}`);
  if (filter.datasource_id !== undefined) q = q.where(broad('datasource_id'), '=', filter.datasource_id);
  if (filter.review_status !== undefined) q = q.where(broad('review_status'), '=', filter.review_status);
  if (filter.severity !== undefined) q = q.where(broad('severity'), '=', filter.severity);
  if (filter.level !== undefined) q = q.where(broad('level'), '=', filter.level);
  if (filter.tag_id !== undefined) q = q.where(sql.ref<number>('fields.tag_id'), '=', filter.tag_id);
  if (filter.last_scan_ids !== undefined) {
    // No finished scan anywhere: no field can be in the view (an empty IN list is not valid SQL).
    q =
      filter.last_scan_ids.length === 0
        ? q.where(sql<boolean>`1 = 0`)
        : q.where(sql.ref<string>('fields.last_scan_id'), 'in', [...filter.last_scan_ids]);
  }
  if (filter.exclude_datasource_ids !== undefined && filter.exclude_datasource_ids.length > 0) {
    q = q.where(sql.ref<string>('fields.datasource_id'), 'not in', [...filter.exclude_datasource_ids]);
  }
  if (filter.q !== undefined) {
    if (sqlite && usesTrigrams(filter.q)) {
      // The FTS5 trigram index of the names (migration 0016). A frequent substring is only probed (`+rowid`, which
      // SQLite does not drive the query from) while the order's index is walked: see frequentSubstring.
      const matches = sql<boolean>`(select rowid from fields_search where fields_search match ${trigramPhrase(filter.q)})`;
      q = q.where(how.frequentQ ? sql<boolean>`+fields.rowid in ${matches}` : sql<boolean>`fields.rowid in ${matches}`);
    } else {
      const pattern = `%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      // PostgreSQL: one stored lower-cased column holds both names (migration 0027).
      if (!sqlite) q = q.where(sql<boolean>`fields.name_search like ${pattern} escape '\\'`);
      else
        q = q.where((eb) =>
          eb.or([
            eb(sql`lower(fields.table_name)`, 'like', sql`${pattern} escape '\\'`),
            eb(sql`lower(fields.field_name)`, 'like', sql`${pattern} escape '\\'`),
          ]),
        );
    }
  }
  return q;
}

/** Rows after the keyset, in the sort's order (ties broken by id), at most `limit`. */
/** SQLite's FTS5 trigram index serves substrings of 3 characters or more; shorter ones are matched with LIKE. */
function usesTrigrams(q: string): boolean {
  return [...q].length >= 3;
}

/** A quoted FTS5 phrase: matched against the trigram index as a substring, case-insensitively. */
function trigramPhrase(q: string): string {
  return `"${q.replace(/"/g, '""')}"`;
}

/**
 * Whether a name substring matches so much of the catalog (SQLite) that walking the list order's index and probing
 * each entry against the matches beats reading every matching row and sorting it. A page of `limit` rows walks about
 * limit × N / n index entries for n matches among N fields, and reading a row costs about four entries (measured at
 * 100,000 fields: `q=email`, 6,300 matches, read and sorted in 22 ms; walking the risk index 6–10 ms): walking wins
 * when n² > limit × N / 4 (over ~3,500 matches for a 500-row page at 100,000 fields). The count stops at that bound
 * (under 1 ms); N is the largest rowid, which a deletion only overestimates.
 */
async function frequentSubstring(db: Queryable, q: string, limit: number): Promise<boolean> {
  const top = await sql<{ n: number | null }>`select max(rowid) as n from fields`.execute(db);
  const bound = Math.ceil(Math.sqrt((limit * Number(top.rows[0]?.n ?? 0)) / 4));
  if (bound === 0) return false;
  const found = await sql<{
    n: number;
  }>`select count(*) as n from (select 1 from fields_search where fields_search match ${trigramPhrase(q)} limit ${bound})`.execute(
    db,
  );
  return Number(found.rows[0]?.n ?? 0) >= bound;
}

export async function listFields(
  db: Queryable,
  filter: FieldFilter,
  sort: FieldSort,
  after: FieldKeyset | undefined,
  limit: number,
): Promise<FieldListRow[]> {
  const sqlite = !isPostgres(db);
  const frequentQ =
    sqlite && filter.q !== undefined && usesTrigrams(filter.q) && (await frequentSubstring(db, filter.q, limit));
  if (!sqlite && sort === 'name' && filter.q !== undefined) return listByNameSearch(db, filter, after, limit);
  let q = applyFilter(selectFields(db), filter, sqlite, { frequentQ, walkOrder: sort === 'outlier_score' });
  switch (sort) {
    case 'name':
      if (after) q = q.where((eb) => afterName(eb, after));
      q = q.orderBy('fields.field_name', 'asc').orderBy('fields.id', 'asc');
      break;
    case 'updated_at':
      if (after) {
        const value = String(after.value);
        q = q.where((eb) =>
          eb.or([
            eb('fields.updated_at', '<', value),
            eb.and([eb('fields.updated_at', '=', value), eb('fields.id', '<', after.id)]),
          ]),
        );
      }
      q = q.orderBy('fields.updated_at', 'desc').orderBy('fields.id', 'desc');
      break;
    case 'outlier_score':
      if (after) q = q.where((eb) => afterOutlier(eb, after, 'fields.outlier_score'));
      q = q.orderBy('fields.outlier_score', (ob) => ob.desc().nullsLast()).orderBy('fields.id', 'desc');
      break;
    case 'risk':
      if (after) q = q.where((eb) => afterOutlier(eb, after, 'fields.risk'));
      q = q.orderBy('fields.risk', (ob) => ob.desc().nullsLast()).orderBy('fields.id', 'desc');
      break;
  }
  return q.limit(limit).execute();
}

/**
 * PostgreSQL, name order with a name substring: the page's ids first, alone, so that PostgreSQL can read them from a
 * name-order index that carries `name_search` (migration 0027) and test the substring on its entries (an index-only
 * scan) instead of fetching the table row of every entry it walks past; then the page's rows. The substring's matches
 * cluster in name order, so the walk is long (31,000 entries for `q=email`'s 500 at 100,000 fields).
 */
async function listByNameSearch(
  db: Queryable,
  filter: FieldFilter,
  after: FieldKeyset | undefined,
  limit: number,
): Promise<FieldListRow[]> {
  let ids = applyFilter(db.selectFrom('fields').select('fields.id'), filter, false);
  if (after) ids = ids.where((eb) => afterName(eb, after));
  const page = ids.orderBy('fields.field_name', 'asc').orderBy('fields.id', 'asc').limit(limit);
  return selectFields(db)
    .where('fields.id', 'in', page)
    .orderBy('fields.field_name', 'asc')
    .orderBy('fields.id', 'asc')
    .execute();
}

/** Where an export page ended: the catalog key of its last row. */
export interface ExportKeyset {
  datasource_id: string;
  table_name: string;
  field_name: string;
}

/**
 * One page of an export: the rows after `after` in catalog-key order (data source, table, field), which the unique
 * index on that key serves (a stable order that groups each table's fields, whatever changes between pages).
 */
export async function listFieldsForExport(
  db: Queryable,
  filter: FieldFilter,
  after: ExportKeyset | undefined,
  limit: number,
): Promise<FieldListRow[]> {
  let q = applyFilter(selectFields(db), filter, !isPostgres(db), { keyOrder: true });
  if (after) {
    q = q.where((eb) =>
      eb(
        eb.refTuple('fields.datasource_id', 'fields.table_name', 'fields.field_name'),
        '>',
        eb.tuple(after.datasource_id, after.table_name, after.field_name),
      ),
    );
  }
  return q
    .orderBy('fields.datasource_id')
    .orderBy('fields.table_name')
    .orderBy('fields.field_name')
    .limit(limit)
    .execute();
}

/** Keyset for "field_name, id". */
function afterName(eb: ExpressionBuilder<DB, 'fields'>, after: FieldKeyset) {
  const value = String(after.value);
  return eb.or([
    eb('fields.field_name', '>', value),
    eb.and([eb('fields.field_name', '=', value), eb('fields.id', '>', after.id)]),
  ]);
}

/** Keyset for "<column> desc nulls last, id desc" (outlier_score or risk, both `real`). */
function afterOutlier(
  eb: ExpressionBuilder<DB, 'fields' | 'tags'>,
  after: FieldKeyset,
  column: 'fields.outlier_score' | 'fields.risk',
) {
  if (after.value === null) return eb.and([eb(column, 'is', null), eb('fields.id', '<', after.id)]);
  // Compare as the column's type: PostgreSQL stores real (float4), and 0.1 as float8 is not 0.1 as float4.
  const value = sql<number>`cast(${after.value} as real)`;
  return eb.or([
    eb(column, '<', value),
    eb.and([eb(column, '=', value), eb('fields.id', '<', after.id)]),
    eb(column, 'is', null),
  ]);
}

/** A data source as the list needs it: whether it is sample data, and its last finished scan (null: none yet). */
export interface SourceState {
  id: string;
  is_sample: boolean;
  last_scan_id: string | null;
}

/**
 * Every data source with its last finished scan (succeeded, failed or cancelled: each keeps the batches it wrote).
 * A data source runs one scan at a time, so its scans finish in the order they were created: the newest scan that is
 * neither queued nor running is the last finished one (read through the scans' (datasource_id, created_at) index).
 * Read here rather than through the data-source and scans modules, which depend on this one; one small query.
 */
export async function listSourceStates(db: Queryable): Promise<SourceState[]> {
  const rows = await db
    .selectFrom('datasources')
    .select((eb) => [
      'datasources.id',
      'datasources.is_sample',
      eb
        .selectFrom('scans')
        .select('scans.id')
        .whereRef('scans.datasource_id', '=', 'datasources.id')
        .where('scans.status', 'not in', ['queued', 'running'])
        .orderBy('scans.created_at', 'desc')
        .orderBy('scans.id', 'desc')
        .limit(1)
        .as('last_scan_id'),
    ])
    .execute();
  return rows.map((r) => ({ id: r.id, is_sample: Number(r.is_sample) === 1, last_scan_id: r.last_scan_id ?? null }));
}

/** Chunk size for `IN (…)` lists: well under both dialects' parameter limits. */
const CHUNK = 500;

function sortedChunks(ids: Iterable<string>): string[][] {
  const sorted = [...new Set(ids)].sort();
  const out: string[][] = [];
  for (let i = 0; i < sorted.length; i += CHUNK) out.push(sorted.slice(i, i + CHUNK));
  return out;
}

// ---------------------------------------------------------------- review columns

export type ReviewState = Pick<FieldRow, 'id' | 'tag_id' | 'level' | 'locked' | 'review_status' | 'review_reason'>;

/**
 * Reads the review state of the fields and row-locks them until the transaction ends, in id order (SQLite serialises
 * writers anyway), so the "before" that an audit entry records is the state the transaction replaces.
 */
export async function lockReviewStates(trx: Tx, ids: readonly string[]): Promise<ReviewState[]> {
  const states: ReviewState[] = [];
  for (const part of sortedChunks(ids)) {
    const query = trx
      .selectFrom('fields')
      .select(['id', 'tag_id', 'level', 'locked', 'review_status', 'review_reason'])
      .where('id', 'in', part)
      .orderBy('id');
    // FOR NO KEY UPDATE: what an UPDATE of non-key columns takes; it lets the metrics' foreign-key checks through.
    states.push(...(await (isPostgres(trx) ? query.forNoKeyUpdate() : query).execute()));
  }
  return states;
}

/** Sets the confirmed classification of fields that share one target (tag, level), locked. */
export async function confirmFields(
  trx: Tx,
  ids: readonly string[],
  change: { tag_id: number; level: string; reviewed_at: string; reviewed_by: string },
): Promise<void> {
  for (const part of sortedChunks(ids)) {
    await trx
      .updateTable('fields')
      .set({
        tag_id: change.tag_id,
        level: change.level,
        // Measured against the former label: unknown once it changes (enqueueUnknownLabelGaps queues it again).
        predicted_label_gap: sql<
          number | null
        >`case when tag_id = ${change.tag_id} then predicted_label_gap else null end`,
        locked: 1,
        review_status: 'confirmed',
        classification_source: 'reviewer',
        classification_confidence: null,
        classification_evidence: null,
        review_reason: null,
        reviewed_at: change.reviewed_at,
        reviewed_by: change.reviewed_by,
        updated_at: change.reviewed_at,
      })
      .where('id', 'in', part)
      .execute();
  }
}

/** Marks one field deferred with the reviewer's reason; classification and lock stay as they are. */
export async function deferField(
  trx: Tx,
  id: string,
  change: { reason: string; reviewed_at: string; reviewed_by: string },
): Promise<void> {
  await trx
    .updateTable('fields')
    .set({
      review_status: 'deferred',
      review_reason: change.reason,
      reviewed_at: change.reviewed_at,
      reviewed_by: change.reviewed_by,
      updated_at: change.reviewed_at,
    })
    .where('id', '=', id)
    .execute();
}

// ---------------------------------------------------------------- deletion

/** Deletes every field of a data source (their metrics and queue entries go with them); returns how many. */
export async function deleteFieldsOfDatasource(trx: Tx, datasourceId: string): Promise<number> {
  if (isPostgres(trx))
    await trx
      .selectFrom('fields')
      .select('id')
      .where('datasource_id', '=', datasourceId)
      .orderBy('id')
      .forUpdate()
      .execute();
  const result = await trx.deleteFrom('fields').where('datasource_id', '=', datasourceId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---------------------------------------------------------------- the metrics' view of the catalog

export interface CatalogFieldRow {
  id: string;
  tag_id: number;
  level: string;
  review_status: FieldRow['review_status'];
  embedding: Uint8Array | null;
  /** The classifier's view (fields.predicted_*); absent or null when unknown. */
  predicted_tag_id?: number | null;
  predicted_level?: string | null;
  predicted_confidence?: number | null;
  /** How many points the label trails the classifier's answer by (fields.predicted_label_gap); null when unknown. */
  predicted_label_gap?: number | null;
  /** How the classification was given (import, classifier, reviewer); absent when unknown. */
  classification_source?: FieldRow['classification_source'];
  /** The classifier's evidence (JSON) when it gave the classification; read for what its answer rested on. */
  classification_evidence?: string | null;
  /** The field's data source, table and name: its naming pattern and identity (the metrics' namingPattern, fieldKey). */
  datasource_id?: string | null;
  table_name?: string | null;
  field_name?: string | null;
}

const CATALOG_COLUMNS = [
  'id',
  'tag_id',
  'level',
  'review_status',
  'embedding',
  'predicted_tag_id',
  'predicted_level',
  'predicted_confidence',
  'predicted_label_gap',
  'classification_source',
  'classification_evidence',
  'datasource_id',
  'table_name',
  'field_name',
] as const;

export async function countFields(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('fields')
    .select((s) => s.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The fields confirmed now, counted by the UTC day (YYYY-MM-DD) of their confirmation (stored as ISO text). */
export async function countConfirmedByDay(db: Queryable): Promise<Array<{ day: string; n: number }>> {
  const day = sql<string>`substr(reviewed_at, 1, 10)`;
  const rows = await db
    .selectFrom('fields')
    .select([day.as('day'), (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('review_status', '=', 'confirmed')
    .groupBy(day)
    .execute();
  return rows.map((r) => ({ day: r.day, n: Number(r.n) }));
}

/** Fields of one data source at one level, by review state; `high_risk`: unreviewed with severity high. */
export interface InventoryCell {
  datasource_id: string;
  level: string;
  fields: number;
  confirmed: number;
  deferred: number;
  high_risk: number;
}

/** The catalog counted by data source and level in one aggregate pass (no field is loaded). */
export async function countByDatasourceAndLevel(db: Queryable): Promise<InventoryCell[]> {
  const rows = await db
    .selectFrom('fields')
    .select((eb) => [
      'datasource_id',
      'level',
      eb.fn.countAll<number | string>().as('fields'),
      sql<number | string>`sum(case when review_status = 'confirmed' then 1 else 0 end)`.as('confirmed'),
      sql<number | string>`sum(case when review_status = 'deferred' then 1 else 0 end)`.as('deferred'),
      sql<number | string>`sum(case when review_status = 'unreviewed' and severity = 'high' then 1 else 0 end)`.as(
        'high_risk',
      ),
    ])
    .groupBy(['datasource_id', 'level'])
    .execute();
  return rows.map((r) => ({
    datasource_id: r.datasource_id,
    level: r.level,
    fields: Number(r.fields),
    confirmed: Number(r.confirmed),
    deferred: Number(r.deferred),
    high_risk: Number(r.high_risk),
  }));
}

/** The catalog counted by tag and level (one pass over the covering index `fields_tag_level_idx`, migration 0025). */
export async function countByTag(db: Queryable): Promise<Array<{ tag_id: number; level: string; fields: number }>> {
  const rows = await db
    .selectFrom('fields')
    .select((eb) => ['tag_id', 'level', eb.fn.countAll<number | string>().as('fields')])
    .groupBy(['tag_id', 'level'])
    .execute();
  return rows.map((r) => ({ tag_id: r.tag_id, level: r.level, fields: Number(r.fields) }));
}

/** One page of fields in id order (keyset), for building an in-memory replica of the catalog. */
export async function listCatalogFields(
  db: Queryable,
  afterId: string | null,
  limit: number,
): Promise<CatalogFieldRow[]> {
  let q = db.selectFrom('fields').select(CATALOG_COLUMNS).orderBy('id').limit(limit);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return q.execute();
}

export async function findCatalogFields(db: Queryable, ids: readonly string[]): Promise<CatalogFieldRow[]> {
  const out: CatalogFieldRow[] = [];
  for (const part of sortedChunks(ids))
    out.push(...(await db.selectFrom('fields').select(CATALOG_COLUMNS).where('id', 'in', part).execute()));
  return out;
}

/**
 * What a confirmation of each of the given fields was about: when it was last reviewed and what the field itself is
 * (a digest of its table and column names, declared type, comment and value formats). A later change of any of them
 * is the field itself changing, which reopens its review; nothing else does.
 */
export async function findReviewBases(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, { reviewedAt: string | null; self: string }>> {
  const out = new Map<string, { reviewedAt: string | null; self: string }>();
  for (const part of sortedChunks(ids)) {
    const rows = await db
      .selectFrom('fields')
      .select(['id', 'reviewed_at', 'table_name', 'field_name', 'data_type', 'comment', 'format_signature'])
      .where('id', 'in', part)
      .execute();
    for (const r of rows) {
      const self = createHash('sha256')
        .update(JSON.stringify([r.table_name, r.field_name, r.data_type, r.comment, r.format_signature]))
        .digest('base64url')
        .slice(0, 16);
      out.set(r.id, { reviewedAt: r.reviewed_at, self });
    }
  }
  return out;
}

/** `table.field` and data source name of the given fields that still exist. */
export async function findFieldNames(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, { name: string; datasource: string }>> {
  const out = new Map<string, { name: string; datasource: string }>();
  for (const part of sortedChunks(ids)) {
    const rows = await db
      .selectFrom('fields')
      .innerJoin('datasources', 'datasources.id', 'fields.datasource_id')
      .select(['fields.id', 'fields.table_name', 'fields.field_name', 'datasources.name as datasource'])
      .where('fields.id', 'in', part)
      .execute();
    for (const r of rows) out.set(r.id, { name: `${r.table_name}.${r.field_name}`, datasource: r.datasource });
  }
  return out;
}

export async function existingFieldIds(db: Queryable, ids: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of sortedChunks(ids))
    for (const r of await db.selectFrom('fields').select('id').where('id', 'in', part).execute()) out.add(r.id);
  return out;
}

/**
 * Locks the given fields for the metrics writer, in id order, skipping those a writer holds (PostgreSQL): the
 * metrics writer never waits for a reviewer or an import, so it can never be half of a deadlock with one. A skipped
 * field is being changed, and its change makes it stale again anyway. Returns the ids it locked (that exist).
 */
export async function lockForMetrics(trx: Tx, ids: readonly string[]): Promise<Set<string>> {
  if (!isPostgres(trx)) return existingFieldIds(trx, ids);
  const out = new Set<string>();
  for (const part of sortedChunks(ids)) {
    const rows = await trx
      .selectFrom('fields')
      .select('id')
      .where('id', 'in', part)
      .orderBy('id')
      .forNoKeyUpdate()
      .skipLocked()
      .execute();
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Mirrors the outlier score and severity of the metrics onto the field rows (the list filters and sorts on them). */
export interface OutlierMirror {
  id: string;
  outlier_score: number;
  severity: NonNullable<FieldRow['severity']>;
  risk: number;
  suggested_tag_id: number | null;
  suggested_level: string | null;
  suggested_confidence: number | null;
}

/** Of the rows about to be mirrored, the unreviewed fields whose severity becomes `high` now (it was not before). */
export async function becomingHighRisk(trx: Tx, rows: readonly OutlierMirror[]): Promise<string[]> {
  const high = rows.filter((r) => r.severity === 'high').map((r) => r.id);
  const out: string[] = [];
  for (const part of sortedChunks(high)) {
    const found = await trx
      .selectFrom('fields')
      .select('id')
      .where('id', 'in', part)
      .where('review_status', '=', 'unreviewed')
      .where((eb) => eb.or([eb('severity', 'is', null), eb('severity', '<>', 'high')]))
      .execute();
    for (const r of found) out.push(r.id);
  }
  return out;
}

export async function setOutlierScores(trx: Tx, rows: readonly OutlierMirror[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 0; i < sorted.length; i += CHUNK) {
    const part = sorted.slice(i, i + CHUNK);
    // One UPDATE … FROM (VALUES …) per chunk, joined by key (a CASE per row made the statement O(n²)).
    const values = sql.join(
      part.map((r, j) =>
        j === 0 && isPostgres(trx)
          ? sql`(${r.id}::text, ${r.outlier_score}::double precision, ${r.severity}::text, ${r.risk}::double precision, ${r.suggested_tag_id}::integer, ${r.suggested_level}::text, ${r.suggested_confidence}::double precision)`
          : sql`(${r.id}, ${r.outlier_score}, ${r.severity}, ${r.risk}, ${r.suggested_tag_id}, ${r.suggested_level}, ${r.suggested_confidence})`,
      ),
    );
    await sql`with v(id, score, severity, risk, s_tag, s_level, s_conf) as (values ${values})
      update fields set outlier_score = v.score, severity = v.severity, risk = v.risk, suggested_tag_id = v.s_tag, suggested_level = v.s_level,
        suggested_confidence = v.s_conf from v where fields.id = v.id`.execute(trx);
  }
}

// ---------------------------------------------------------------- re-evaluation by the classifier

/** The fields the classifier may classify again: chosen by it, neither confirmed nor locked. */
const RECLASSIFIABLE = sql<boolean>`classification_source in ${AUTOMATIC} and locked = 0 and review_status <> 'confirmed'`;

/**
 * The classifier's view of the field was made with another classifier or taxonomy than `key` (or never), or lacks the
 * label gap (made before migration 0028, or the label changed since).
 */
const VIEW_OUTDATED = (key: string) =>
  sql<boolean>`(predicted_with is null or predicted_with <> ${key} or predicted_label_gap is null)`;

/**
 * Queues every re-classifiable field classified with another classifier or taxonomy than `key`, and every field whose
 * classifier view (fields.predicted_*) was made with another (or never: fields imported before the view existed).
 */
export async function enqueueOutdatedClassifications(trx: Tx, key: string, now: string, token: string): Promise<void> {
  await sql`insert into reclassify_queue (field_id, token, enqueued_at)
    select id, ${token}, ${now} from fields where (${RECLASSIFIABLE} and (classified_with is null or classified_with <> ${key})) or ${VIEW_OUTDATED(key)}
    on conflict (field_id) do nothing`.execute(trx);
}

/**
 * Queues for the re-classification worker those of the fields whose label gap is unknown (a write kept or set a
 * label other than the one the gap was measured against), releasing any claim: it measures the gap again.
 */
export async function enqueueUnknownLabelGaps(trx: Tx, ids: readonly string[], now: string): Promise<void> {
  const token = randomUUID();
  for (const part of sortedChunks(ids)) {
    await sql`insert into reclassify_queue (field_id, token, enqueued_at, claimed_by, claimed_at)
      select id, ${token}, ${now}, null, null from fields where id in (${sql.join(part)}) and predicted_label_gap is null
      on conflict (field_id) do update set token = excluded.token, enqueued_at = excluded.enqueued_at, claimed_by = null, claimed_at = null`.execute(
      trx,
    );
  }
}

/** At most this many column names of one table are read as the classifier's context. */
const MAX_TABLE_COLUMNS = 400;

/** The stored column names of the given tables of a data source (at most MAX_TABLE_COLUMNS each), by table name. */
export async function listTableColumnNames(
  db: Queryable,
  datasourceId: string,
  tables: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const unique = [...new Set(tables)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const rows = await db
      .selectFrom('fields')
      .select(['table_name', 'field_name'])
      .where('datasource_id', '=', datasourceId)
      .where('table_name', 'in', unique.slice(i, i + CHUNK))
      .orderBy('table_name')
      .orderBy('field_name')
      .execute();
    for (const r of rows) {
      const list = out.get(r.table_name) ?? [];
      if (list.length < MAX_TABLE_COLUMNS) list.push(r.field_name);
      out.set(r.table_name, list);
    }
  }
  return out;
}

export type ReclassificationRow = Pick<
  FieldRow,
  | 'id'
  | 'datasource_id'
  | 'table_name'
  | 'field_name'
  | 'data_type'
  | 'comment'
  | 'format_signature'
  | 'value_summary'
  | 'embedding'
  | 'embedder_version'
  | 'tag_id'
  | 'predicted_tag_id'
  | 'predicted_level'
  | 'predicted_label_gap'
  | 'classification_source'
  | 'classification_evidence'
  | 'updated_at'
> & {
  /** Whether the classifier may change its classification (else only its view is refreshed). */
  reclassifiable: boolean;
};

/** What the classifier needs of the given fields (all of them: a field that is not re-classifiable still gets its view). */
export async function findForReclassification(db: Queryable, ids: readonly string[]): Promise<ReclassificationRow[]> {
  const out: ReclassificationRow[] = [];
  for (const part of sortedChunks(ids)) {
    const rows = await db
      .selectFrom('fields')
      .select([
        'id',
        'datasource_id',
        'table_name',
        'field_name',
        'data_type',
        'comment',
        'format_signature',
        'value_summary',
        'embedding',
        'embedder_version',
        'tag_id',
        'predicted_tag_id',
        'predicted_level',
        'predicted_label_gap',
        'classification_source',
        'classification_evidence',
        'updated_at',
        sql<number>`case when ${RECLASSIFIABLE} then 1 else 0 end`.as('reclassifiable'),
      ])
      .where('id', 'in', part)
      .execute();
    out.push(...rows.map((r) => ({ ...r, reclassifiable: Number(r.reclassifiable) === 1 })));
  }
  return out;
}

/**
 * Replaces a field's embedding made by another embedder (or none) with the current embedder's, unless a writer has
 * given it a new one since it was read (`was`: the version read). The change log's trigger makes its metrics stale.
 */
export async function replaceEmbedding(
  trx: Tx,
  id: string,
  was: string | null,
  embedding: Uint8Array,
  version: string,
): Promise<void> {
  let q = trx.updateTable('fields').set({ embedding, embedder_version: version }).where('id', '=', id);
  q = was === null ? q.where('embedder_version', 'is', null) : q.where('embedder_version', '=', was);
  await q.execute();
}

/**
 * Stores the classifier's view of a field (its classification is not touched). The view's tag, level and label gap are
 * written only when they change: they are in the change log's trigger, and an unchanged view must not make metrics
 * stale. The gap was measured against the label read (`row.tag_id`): if a reviewer changed it since, it is unknown.
 */
export async function applyPrediction(
  trx: Tx,
  row: Pick<ReclassificationRow, 'id' | 'tag_id' | 'predicted_tag_id' | 'predicted_level' | 'predicted_label_gap'>,
  view: { tag_id: number; level: string; confidence: number; label_gap: number; predicted_with: string },
): Promise<void> {
  const moved = row.predicted_tag_id !== view.tag_id || row.predicted_level !== view.level;
  const gapMoved = row.predicted_label_gap === null || Math.abs(row.predicted_label_gap - view.label_gap) > 1e-6;
  await trx
    .updateTable('fields')
    .set({
      predicted_confidence: view.confidence,
      predicted_with: view.predicted_with,
      ...(moved ? { predicted_tag_id: view.tag_id, predicted_level: view.level } : {}),
      ...(gapMoved
        ? {
            predicted_label_gap: sql<
              number | null
            >`case when tag_id = ${row.tag_id} then cast(${view.label_gap} as double precision) else null end`,
          }
        : {}),
    })
    .where('id', '=', row.id)
    .execute();
}

/**
 * Stores a new automatic classification of a field that is still re-classifiable (re-checked here: a reviewer may
 * have confirmed it meanwhile); back to `unreviewed` when its tag or level changes. Returns what happened.
 */
export async function applyReclassification(
  trx: Tx,
  id: string,
  change: {
    source: 'classifier' | 'rule';
    tag_id: number;
    level: string;
    confidence: number;
    evidence: string;
    /** The classifier's own view (the classification itself, unless a rule decided), and the decision's label gap. */
    predicted: { tag_id: number; level: string; confidence: number; label_gap: number };
    classified_with: string;
    updated_at: string;
  },
): Promise<'changed' | 'same' | 'skipped'> {
  const before = await trx
    .selectFrom('fields')
    .select(['tag_id', 'level'])
    .where('id', '=', id)
    .where(RECLASSIFIABLE)
    .executeTakeFirst();
  if (!before) return 'skipped';
  const moved = before.tag_id !== change.tag_id || before.level !== change.level;
  await trx
    .updateTable('fields')
    .set({
      tag_id: change.tag_id,
      level: change.level,
      classification_source: change.source,
      classification_confidence: change.confidence,
      classification_evidence: change.evidence,
      classified_with: change.classified_with,
      predicted_tag_id: change.predicted.tag_id,
      predicted_level: change.predicted.level,
      predicted_confidence: change.predicted.confidence,
      predicted_label_gap: change.predicted.label_gap,
      predicted_with: change.classified_with,
      ...(moved ? { review_status: 'unreviewed' as const, updated_at: change.updated_at } : {}),
    })
    .where('id', '=', id)
    .where(RECLASSIFIABLE)
    .execute();
  return moved ? 'changed' : 'same';
}

// ---------------------------------------------------------------- scans (the scans module's writes)

/** What a scan compares a column it finds with: the field's stored description and whether its classification is kept. */
export type ScanBaselineRow = Pick<
  FieldRow,
  | 'id'
  | 'table_name'
  | 'field_name'
  | 'data_type'
  | 'comment'
  | 'format_signature'
  | 'locked'
  | 'review_status'
  | 'classification_source'
>;

/** Every field of a data source, read in id-ordered pages (a large source is not one giant result). */
export async function listScanBaseline(
  db: Queryable,
  datasourceId: string,
  pageSize = 5000,
): Promise<ScanBaselineRow[]> {
  const out: ScanBaselineRow[] = [];
  let after: string | null = null;
  for (;;) {
    let q = db
      .selectFrom('fields')
      .select([
        'id',
        'table_name',
        'field_name',
        'data_type',
        'comment',
        'format_signature',
        'locked',
        'review_status',
        'classification_source',
      ])
      .where('datasource_id', '=', datasourceId)
      .orderBy('id')
      .limit(pageSize);
    if (after !== null) q = q.where('id', '>', after);
    const page = await q.execute();
    out.push(...page);
    if (page.length < pageSize) return out;
    after = page[page.length - 1]!.id;
  }
}

/**
 * A scan keeps a field's classification when a person decided it (confirmed, locked) or an import gave it; only a
 * classification the classifier chose is replaced, and the field then goes back to `unreviewed`.
 */
const KEEP_ON_SCAN = sql`(fields.locked = 1 or fields.review_status = 'confirmed' or fields.classification_source not in ${AUTOMATIC})`;

/**
 * Inserts new and updates changed columns found by a scan (upsert on data source, table and field name), in chunks,
 * recording on each what the scan `scanId` did: `new` (inserted), `reclassified` (its classification was replaced
 * by a different tag or level), else `changed`.
 */
export async function upsertScannedFields(
  db: Queryable,
  rows: readonly NewFieldRow[],
  scanId: string,
): Promise<string[]> {
  const ids: string[] = [];
  await lockExistingInIdOrder(db, rows);
  for (let start = 0; start < rows.length; start += UPSERT_CHUNK_ROWS) {
    const chunk = rows
      .slice(start, start + UPSERT_CHUNK_ROWS)
      .map((row) => ({ ...row, last_scan_id: scanId, scan_change: 'new' as const }));
    try {
      const result = await db
        .insertInto('fields')
        .values(chunk)
        .onConflict((oc) =>
          oc.columns(['datasource_id', 'table_name', 'field_name']).doUpdateSet((eb) => ({
            data_type: eb.ref('excluded.data_type'),
            comment: eb.ref('excluded.comment'),
            format_signature: sql<string | null>`coalesce(excluded.format_signature, fields.format_signature)`,
            value_summary: sql<string | null>`coalesce(excluded.value_summary, fields.value_summary)`,
            embedding: eb.ref('excluded.embedding'),
            embedder_version: eb.ref('excluded.embedder_version'),
            ...classificationUnless(KEEP_ON_SCAN),
            review_status: sql<
              FieldRow['review_status']
            >`case when ${KEEP_ON_SCAN} then fields.review_status else 'unreviewed' end`,
            review_reason: sql<string | null>`case when ${KEEP_ON_SCAN} then fields.review_reason else null end`,
            // The classifier's own view follows the column's inputs whatever the field's classification: it is the
            // outlier model's evidence about that classification.
            predicted_tag_id: sql<number | null>`coalesce(excluded.predicted_tag_id, fields.predicted_tag_id)`,
            predicted_level: sql<string | null>`coalesce(excluded.predicted_level, fields.predicted_level)`,
            predicted_confidence: sql<
              number | null
            >`coalesce(excluded.predicted_confidence, fields.predicted_confidence)`,
            predicted_with: sql<string | null>`coalesce(excluded.predicted_with, fields.predicted_with)`,
            // Measured against the incoming label: unknown when the stored one is kept and differs (queued again).
            predicted_label_gap: sql<
              number | null
            >`case when ${KEEP_ON_SCAN} and fields.tag_id <> excluded.tag_id then null else coalesce(excluded.predicted_label_gap, fields.predicted_label_gap) end`,
            last_scan_id: eb.ref('excluded.last_scan_id'),
            // Every expression here reads the row as it was before this update.
            scan_change: sql<ScanChange>`case when not ${KEEP_ON_SCAN} and (fields.tag_id <> excluded.tag_id or fields.level <> excluded.level) then 'reclassified' else 'changed' end`,
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returning('id')
        .execute();
      for (const r of result) ids.push(r.id);
    } catch (error) {
      if (isForeignKeyViolation(error)) throw notFound('Data source');
      throw error;
    }
  }
  return ids;
}

/** A field a scan removed, with the classification it had (for the audit entry). */
export interface RemovedFieldRow {
  id: string;
  table_name: string;
  field_name: string;
  tag_id: number;
  classification_chain_path: string;
  level: string;
  locked: FieldRow['locked'];
  review_status: FieldRow['review_status'];
}

/** Deletes the given fields of a data source (row-locked in id order first) and answers what they were. */
export async function deleteScannedFields(
  trx: Tx,
  datasourceId: string,
  ids: readonly string[],
): Promise<RemovedFieldRow[]> {
  const out: RemovedFieldRow[] = [];
  for (const part of sortedChunks(ids)) {
    const query = trx
      .selectFrom('fields')
      .innerJoin('tags', 'tags.id', 'fields.tag_id')
      .select([
        'fields.id',
        'fields.table_name',
        'fields.field_name',
        'fields.tag_id',
        'tags.chain_path as classification_chain_path',
        'fields.level',
        'fields.locked',
        'fields.review_status',
      ])
      .where('fields.datasource_id', '=', datasourceId)
      .where('fields.id', 'in', part)
      .orderBy('fields.id');
    const rows = await (isPostgres(trx) ? query.forUpdate('fields') : query).execute();
    if (rows.length === 0) continue;
    await trx
      .deleteFrom('fields')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    out.push(...rows);
  }
  return out;
}

/** How many fields carry one of the tags (as their classification or as their suggestion). */
export async function countFieldsOfTags(
  db: Queryable,
  tagIds: readonly number[],
): Promise<{ classified: number; suggested: number }> {
  if (tagIds.length === 0) return { classified: 0, suggested: 0 };
  const row = await db
    .selectFrom('fields')
    .select((eb) => [
      eb.fn.sum<number>(eb.case().when('tag_id', 'in', tagIds).then(1).else(0).end()).as('classified'),
      eb.fn.sum<number>(eb.case().when('suggested_tag_id', 'in', tagIds).then(1).else(0).end()).as('suggested'),
    ])
    .where((eb) => eb.or([eb('tag_id', 'in', tagIds), eb('suggested_tag_id', 'in', tagIds)]))
    .executeTakeFirstOrThrow();
  return { classified: Number(row.classified ?? 0), suggested: Number(row.suggested ?? 0) };
}

/**
 * Moves the fields of the tags (and suggestions naming them) to another tag; returns how many fields were moved.
 * With `toTagId` null no field may carry the tags (the caller checked): their suggestions are dropped.
 */
export async function moveFieldsToTag(
  trx: Tx,
  fromTagIds: readonly number[],
  toTagId: number | null,
  now: string,
): Promise<number> {
  if (fromTagIds.length === 0) return 0;
  let moved = 0;
  if (toTagId !== null)
    moved = Number(
      (
        await trx
          .updateTable('fields')
          .set({ tag_id: toTagId, predicted_label_gap: null, updated_at: now })
          .where('tag_id', 'in', fromTagIds)
          .executeTakeFirst()
      ).numUpdatedRows,
    );
  const suggestion =
    toTagId === null
      ? { suggested_tag_id: null, suggested_level: null, suggested_confidence: null }
      : { suggested_tag_id: toTagId };
  await trx.updateTable('fields').set(suggestion).where('suggested_tag_id', 'in', fromTagIds).execute();
  return moved;
}

/**
 * Which fields a rule preview reads, narrowed in SQL by what SQL can judge exactly (data sources, declared types), and
 * the columns its patterns need besides the name (a column no pattern reads is not read).
 */
export interface RuleCandidateQuery {
  afterId: string | null;
  limit: number;
  datasourceIds?: readonly string[];
  dataTypes?: readonly string[];
  read: { table_name: boolean; comment: boolean };
}

/** A field a rule could take (the classifier would classify it), as a rule preview matches it (columns not read: null). */
export interface RuleCandidateRow {
  id: string;
  field_name: string;
  table_name: string | null;
  comment: string | null;
}

/** Fields the classifier (or a rule) decides — not import-given, confirmed or locked — in id order, a page at a time. */
export async function listRuleCandidates(db: Queryable, query: RuleCandidateQuery): Promise<RuleCandidateRow[]> {
  let q = db
    .selectFrom('fields')
    .select(['id', 'field_name'])
    .select(query.read.table_name ? sql<string | null>`table_name`.as('table_name') : sql<null>`null`.as('table_name'))
    .select(query.read.comment ? sql<string | null>`comment`.as('comment') : sql<null>`null`.as('comment'))
    .where(sql<boolean>`classification_source in ${AUTOMATIC} and locked = 0 and review_status <> 'confirmed'`);
  if (query.datasourceIds !== undefined) q = q.where('datasource_id', 'in', query.datasourceIds);
  if (query.dataTypes !== undefined) q = q.where('data_type', 'in', query.dataTypes);
  if (query.afterId !== null) q = q.where('id', '>', query.afterId);
  return q.orderBy('id').limit(query.limit).execute();
}

/** The listed fields of a rule preview, with their current classification (≤ 500 ids). */
export async function findRuleCandidateDetails(
  db: Queryable,
  ids: readonly string[],
): Promise<Array<{ id: string; table_name: string; field_name: string; chain_path: string; level: string }>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('fields')
    .innerJoin('tags', 'tags.id', 'fields.tag_id')
    .select(['fields.id', 'fields.table_name', 'fields.field_name', 'tags.chain_path', 'fields.level'])
    .where('fields.id', 'in', ids)
    .execute();
}

/** Every declared type in the catalog, once (a rule's type families are turned into these for SQL). */
export async function listDeclaredDataTypes(db: Queryable): Promise<string[]> {
  const rows = await db
    .selectFrom('fields')
    .select('data_type')
    .distinct()
    .where('data_type', 'is not', null)
    .execute();
  return rows.map((r) => r.data_type as string);
}
