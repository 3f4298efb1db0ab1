/** All SQL of fields: the upsert of an import, reads, and the keyset-paginated list. */
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import { isForeignKeyViolation, type Queryable } from '../../db/database.js';
import type { DB, FieldRow, NewFieldRow } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';
import type { FieldSort } from './fields.schemas.js';

/** A field as the API shows it: every column but the embedding, plus its tag's chain path. */
export type FieldListRow = Omit<FieldRow, 'embedding'> & { classification_chain_path: string };

export interface FieldFilter {
  datasource_id?: string;
  review_status?: FieldRow['review_status'];
  severity?: NonNullable<FieldRow['severity']>;
  level?: string;
  tag_id?: number;
  q?: string;
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
  'fields.format_signature',
  'fields.tag_id',
  'fields.level',
  'fields.locked',
  'fields.review_status',
  'fields.review_reason',
  'fields.reviewed_at',
  'fields.reviewed_by',
  'fields.embedder_version',
  'fields.outlier_score',
  'fields.severity',
  'fields.created_at',
  'fields.updated_at',
] as const;

function selectFields(db: Queryable) {
  return db
    .selectFrom('fields')
    .innerJoin('tags', 'tags.id', 'fields.tag_id')
    .select(FIELD_COLUMNS)
    .select('tags.chain_path as classification_chain_path');
}

export async function findFieldById(db: Queryable, id: string): Promise<FieldListRow | undefined> {
  return selectFields(db).where('fields.id', '=', id).executeTakeFirst();
}

/** The stored row with its embedding, for services that compute on it. */
export async function findFieldRowById(db: Queryable, id: string): Promise<FieldRow | undefined> {
  return db.selectFrom('fields').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Inserts or updates on (datasource_id, table_name, field_name), in chunks. A locked field keeps
 * its tag and level; a field whose classification changes goes back to `unreviewed`.
 * Returns the stored id of every row (an updated row keeps its original id).
 */
export async function upsertFields(db: Queryable, rows: readonly NewFieldRow[]): Promise<Array<{ id: string; table_name: string; field_name: string }>> {
  const stored: Array<{ id: string; table_name: string; field_name: string }> = [];
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
            tag_id: sql<number>`case when fields.locked = 1 then fields.tag_id else excluded.tag_id end`,
            level: sql<string>`case when fields.locked = 1 then fields.level else excluded.level end`,
            review_status: sql<FieldRow['review_status']>`case when fields.locked = 0 and (fields.tag_id <> excluded.tag_id or fields.level <> excluded.level) then 'unreviewed' else fields.review_status end`,
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

function applyFilter(query: SelectQueryBuilder<DB, 'fields' | 'tags', FieldListRow>, filter: FieldFilter) {
  let q = query;
  if (filter.datasource_id !== undefined) q = q.where('fields.datasource_id', '=', filter.datasource_id);
  if (filter.review_status !== undefined) q = q.where('fields.review_status', '=', filter.review_status);
  if (filter.severity !== undefined) q = q.where('fields.severity', '=', filter.severity);
  if (filter.level !== undefined) q = q.where('fields.level', '=', filter.level);
  if (filter.tag_id !== undefined) q = q.where('fields.tag_id', '=', filter.tag_id);
  if (filter.q !== undefined) {
    const pattern = `%${filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(fields.table_name)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(fields.field_name)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  return q;
}

/** Rows after the keyset, in the sort's order (ties broken by id), at most `limit`. */
export async function listFields(db: Queryable, filter: FieldFilter, sort: FieldSort, after: FieldKeyset | undefined, limit: number): Promise<FieldListRow[]> {
  let q = applyFilter(selectFields(db), filter);
  switch (sort) {
    case 'name':
      if (after) {
        const value = String(after.value);
        q = q.where((eb) => eb.or([eb('fields.field_name', '>', value), eb.and([eb('fields.field_name', '=', value), eb('fields.id', '>', after.id)])]));
      }
      q = q.orderBy('fields.field_name', 'asc').orderBy('fields.id', 'asc');
      break;
    case 'updated_at':
      if (after) {
        const value = String(after.value);
        q = q.where((eb) => eb.or([eb('fields.updated_at', '<', value), eb.and([eb('fields.updated_at', '=', value), eb('fields.id', '<', after.id)])]));
      }
      q = q.orderBy('fields.updated_at', 'desc').orderBy('fields.id', 'desc');
      break;
    case 'outlier_score':
      if (after) q = q.where((eb) => afterOutlier(eb, after));
      q = q.orderBy('fields.outlier_score', (ob) => ob.desc().nullsLast()).orderBy('fields.id', 'desc');
      break;
  }
  return q.limit(limit).execute();
}

/** Keyset for "outlier_score desc nulls last, id desc". */
function afterOutlier(eb: ExpressionBuilder<DB, 'fields' | 'tags'>, after: FieldKeyset) {
  if (after.value === null) return eb.and([eb('fields.outlier_score', 'is', null), eb('fields.id', '<', after.id)]);
  // Compare as the column's type: PostgreSQL stores real (float4), and 0.1 as float8 is not 0.1 as float4.
  const value = sql<number>`cast(${after.value} as real)`;
  return eb.or([
    eb('fields.outlier_score', '<', value),
    eb.and([eb('fields.outlier_score', '=', value), eb('fields.id', '<', after.id)]),
    eb('fields.outlier_score', 'is', null),
  ]);
}
