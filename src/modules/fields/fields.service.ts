/**
 * The field catalog: importing fields (upsert, classification by tag id, chain path or automatically,
 * embeddings), reading and listing them.
 *
 * For other modules (review, metrics) the stable surface is:
 * - `getField(id)` → the API shape, or 404; `getFieldRow(id, trx?)` → the stored row (with embedding and `locked`), or undefined;
 * - `resolveClassification({tag_id, chain_path, level}, paths?)` → `{tag, level}` (each null when not given),
 *   or 422 `unprocessable` with `errors[]` (unknown tag id, unknown chain path, both given and naming different tags, unknown level);
 * - `effectiveLevel(code)` → a configured level for a stored or built-in code;
 * - the optional `onFieldsImported` dependency (the metrics staleness hook) is called inside every import
 *   transaction with the ids of the fields it created or updated; a throw rolls the import back.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { encodeVector, type Database, type Tx } from '../../db/database.js';
import type { DatasourceRow, FieldRow, NewFieldRow, TagRow } from '../../db/schema.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { formatSignature } from '../../embeddings/format-signature.js';
import { AppError, notFound, unprocessable, type ProblemFieldError } from '../../http/errors.js';
import type { Actor, AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { TagAnchors, TagIndex, TaxonomyService } from '../taxonomy/taxonomy.service.js';
import * as repo from './fields.repository.js';
import { FIELD_SORTS, type FieldListQuery, type FieldListResponse, type FieldResponse, type FieldSort, type ImportFieldItem, type ImportFieldsBody, type ImportFieldsResponse } from './fields.schemas.js';

/** A bad import names at most this many problems (enough to fix a file; bounded for a 5000-row body). */
const MAX_REPORTED_ERRORS = 100;

export interface ClassificationInput {
  tag_id?: number | null;
  chain_path?: string | null;
  level?: string | null;
}

export interface ResolvedClassification {
  /** The tag named by id and/or path; null when neither was given. */
  tag: TagRow | null;
  /** The level given (a configured code); null when none was given. */
  level: string | null;
}

/** JSON-pointer paths used in 422 errors[] for each input of resolveClassification. */
export interface ClassificationPaths {
  tag_id: string;
  chain_path: string;
  level: string;
}

const DEFAULT_PATHS: ClassificationPaths = { tag_id: '/classification_tag_id', chain_path: '/classification_chain_path', level: '/lock_level' };

/** Called inside the import transaction with the fields it wrote. */
export type OnFieldsImported = (trx: Tx, fieldIds: readonly string[], reason: 'imported' | 'sample_data') => Promise<void>;

interface PreparedImport {
  rows: NewFieldRow[];
  autoClassified: number;
}

export function toFieldResponse(row: repo.FieldListRow): FieldResponse {
  return {
    id: row.id,
    datasource_id: row.datasource_id,
    table_name: row.table_name,
    field_name: row.field_name,
    data_type: row.data_type,
    comment: row.comment,
    classification_tag_id: row.tag_id,
    classification_chain_path: row.classification_chain_path,
    level: row.level,
    lock_level: row.locked === 1 ? row.level : null,
    review_status: row.review_status,
    outlier_score: row.outlier_score,
    severity: row.severity,
    updated_at: row.updated_at,
  };
}

/** "A / B/C " → "A/B/C": chain paths are matched segment by segment, ignoring spaces around "/". */
function normalizeChainPath(path: string): string {
  return path
    .split('/')
    .map((s) => s.trim())
    .join('/');
}

const fieldKey = (table: string, field: string): string => `${table}\u0000${field}`;

function encodeCursor(sort: FieldSort, key: repo.FieldKeyset): string {
  return Buffer.from(JSON.stringify({ s: sort, v: key.value, i: key.id }), 'utf8').toString('base64url');
}

function decodeCursor(sort: FieldSort, cursor: string): repo.FieldKeyset {
  const invalid = () =>
    new AppError('validation_failed', 'The cursor is not a next_cursor of this list and sort', { errors: [{ path: '/querystring/cursor', message: 'is invalid' }] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!parsed || typeof parsed !== 'object') throw invalid();
  const { s, v, i } = parsed as { s?: unknown; v?: unknown; i?: unknown };
  if (s !== sort || !(FIELD_SORTS as readonly unknown[]).includes(s) || typeof i !== 'string' || i.length > 64) throw invalid();
  if (sort === 'outlier_score' ? !(v === null || (typeof v === 'number' && Number.isFinite(v))) : typeof v !== 'string' || v.length > 256) throw invalid();
  return { value: v as string | number | null, id: i };
}

function sortValue(sort: FieldSort, row: repo.FieldListRow): string | number | null {
  if (sort === 'name') return row.field_name;
  if (sort === 'updated_at') return row.updated_at;
  return row.outlier_score;
}

export class FieldsService {
  constructor(
    private readonly deps: {
      database: Database;
      clock: Clock;
      audit: AuditService;
      embedder: Embedder;
      taxonomy: TaxonomyService;
      datasources: DatasourcesService;
      onFieldsImported?: OnFieldsImported;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** One field in the API shape, or 404. */
  async getField(id: string, trx?: Tx): Promise<FieldResponse> {
    const row = await repo.findFieldById(trx ?? this.db, id);
    if (!row) throw notFound('Field');
    return toFieldResponse(row);
  }

  /** The stored row (embedding, locked flag, review columns), or undefined. */
  async getFieldRow(id: string, trx?: Tx): Promise<FieldRow | undefined> {
    return repo.findFieldRowById(trx ?? this.db, id);
  }

  /** One page of fields, filtered and sorted, with the cursor of the next page (keyset on (sort key, id)). */
  async listFields(query: FieldListQuery): Promise<FieldListResponse> {
    const sort = query.sort;
    const after = query.cursor === undefined ? undefined : decodeCursor(sort, query.cursor);
    const filter: repo.FieldFilter = {};
    if (query.datasource_id !== undefined) filter.datasource_id = query.datasource_id;
    if (query.review_status !== undefined) filter.review_status = query.review_status;
    if (query.severity !== undefined) filter.severity = query.severity;
    if (query.level !== undefined) filter.level = query.level;
    if (query.tag_id !== undefined) filter.tag_id = query.tag_id;
    if (query.q !== undefined) filter.q = query.q;
    // One row more than asked tells whether a next page exists without a count.
    const rows = await repo.listFields(this.db, filter, sort, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const next = rows.length > query.limit && last ? encodeCursor(sort, { value: sortValue(sort, last), id: last.id }) : null;
    return { items: page.map(toFieldResponse), next_cursor: next };
  }

  /** A configured level for a stored or built-in level code (see TaxonomyService.configuredLevel). */
  effectiveLevel(code: string): string {
    return this.deps.taxonomy.configuredLevel(code);
  }

  /**
   * Resolves a classification given by tag id and/or chain path and an optional level.
   * Throws 422 (errors[] at `paths`) for an unknown tag id or path, a path and id naming different tags, or an unknown level.
   */
  async resolveClassification(input: ClassificationInput, paths: ClassificationPaths = DEFAULT_PATHS): Promise<ResolvedClassification> {
    const index = await this.deps.taxonomy.tagIndex();
    const errors: ProblemFieldError[] = [];
    const resolved = this.resolveWith(index, input, paths, errors);
    if (errors.length > 0) throw unprocessable(errors.map((e) => `${e.path} ${e.message}`).join('; '), errors);
    return resolved;
  }

  private resolveWith(index: TagIndex, input: ClassificationInput, paths: ClassificationPaths, errors: ProblemFieldError[]): ResolvedClassification {
    let byId: TagRow | undefined;
    let byPath: TagRow | undefined;
    let failed = false;
    if (input.tag_id !== undefined && input.tag_id !== null) {
      byId = index.byId.get(input.tag_id);
      if (!byId) {
        errors.push({ path: paths.tag_id, message: `names no existing tag (${input.tag_id})` });
        failed = true;
      }
    }
    if (input.chain_path !== undefined && input.chain_path !== null) {
      byPath = index.byPath.get(normalizeChainPath(input.chain_path));
      if (!byPath) {
        errors.push({ path: paths.chain_path, message: 'names no existing tag' });
        failed = true;
      }
    }
    if (byId && byPath && byId.id !== byPath.id) {
      errors.push({ path: paths.chain_path, message: `names tag ${byPath.id} (${byPath.chain_path}) but classification_tag_id names tag ${byId.id} (${byId.chain_path})` });
      failed = true;
    }
    const level = input.level ?? null;
    if (level !== null && !this.deps.taxonomy.isLevel(level)) {
      errors.push({ path: paths.level, message: `is not a configured level (${this.deps.taxonomy.listLevels().map((l) => l.code).join(', ')})` });
      failed = true;
    }
    return failed ? { tag: null, level: null } : { tag: byId ?? byPath ?? null, level };
  }

  /**
   * Imports up to 5000 fields into a data source in one transaction (upsert on table + field name);
   * 400 for duplicate rows, 404 for an unknown data source, 422 for unknown tags, paths or levels.
   */
  async importFields(actor: Actor, body: ImportFieldsBody): Promise<ImportFieldsResponse> {
    assertNoDuplicates(body.fields);
    const datasource = await this.deps.datasources.getDatasource(body.datasource_id);
    const prepared = await this.prepareImport(datasource.id, body.fields);
    return this.db.transaction().execute(async (trx) => {
      const result = await this.writeImport(trx, datasource, prepared);
      await this.deps.onFieldsImported?.(trx, result.field_ids, 'imported');
      await this.deps.audit.record(trx, actor, {
        action: 'fields.imported',
        targetType: 'datasource',
        targetId: datasource.id,
        details: { datasource: datasource.name, fields: prepared.rows.length, created: result.created, updated: result.updated, auto_classified: prepared.autoClassified },
      });
      return result;
    });
  }

  /**
   * Validates, classifies and embeds `items` now, outside any transaction (it reads tags and anchors); the returned
   * `writeInto(trx, datasource)` writes them inside the caller's transaction, with no audit entry of its own.
   * For the sample data, which loads several data sources under one lock.
   */
  async prepareFieldImport(items: readonly ImportFieldItem[]): Promise<{ writeInto(trx: Tx, datasource: DatasourceRow): Promise<ImportFieldsResponse> }> {
    assertNoDuplicates(items);
    const prepared = await this.prepareImport('', items);
    return {
      writeInto: async (trx, datasource) => {
        const rows = prepared.rows.map((row) => ({ ...row, datasource_id: datasource.id }));
        const result = await this.writeImport(trx, datasource, { rows, autoClassified: prepared.autoClassified });
        await this.deps.onFieldsImported?.(trx, result.field_ids, 'sample_data');
        return result;
      },
    };
  }

  /** Validation, classification and embeddings: everything but the writes, so the transaction stays short. */
  private async prepareImport(datasourceId: string, items: readonly ImportFieldItem[]): Promise<PreparedImport> {
    const index = await this.deps.taxonomy.tagIndex();
    const errors: ProblemFieldError[] = [];
    const resolved = items.map((item, i) => {
      const prefix = `/fields/${i}`;
      return this.resolveWith(
        index,
        { tag_id: item.classification_tag_id ?? null, chain_path: item.classification_chain_path ?? null, level: item.level ?? null },
        { tag_id: `${prefix}/classification_tag_id`, chain_path: `${prefix}/classification_chain_path`, level: `${prefix}/level` },
        errors,
      );
    });
    if (errors.length > 0) {
      const shown = errors.slice(0, MAX_REPORTED_ERRORS);
      throw unprocessable(`${errors.length} field(s) refer to an unknown tag, chain path or level; nothing was imported`, shown);
    }

    const signatures = items.map((item) => (item.sample_values && item.sample_values.length > 0 ? formatSignature(item.sample_values) : null));
    const embeddings = await this.deps.embedder.embedFields(
      items.map((item, i) => ({
        table_name: item.table_name,
        field_name: item.field_name,
        comment: item.comment ?? null,
        data_type: item.data_type ?? null,
        format_signature: signatures[i] ?? null,
      })),
    );
    const needsAuto = resolved.some((r) => r.tag === null);
    const candidates = needsAuto ? leafAnchors(await this.deps.taxonomy.tagAnchors()) : [];

    const now = this.deps.clock.now().toISOString();
    let autoClassified = 0;
    const rows = items.map((item, i): NewFieldRow => {
      const embedding = embeddings[i] as Float32Array;
      const given = resolved[i] as ResolvedClassification;
      let tag = given.tag;
      if (tag === null) {
        tag = nearestTag(candidates, embedding);
        autoClassified += 1;
      }
      return {
        id: randomUUID(),
        datasource_id: datasourceId,
        table_name: item.table_name,
        field_name: item.field_name,
        data_type: item.data_type ?? null,
        comment: item.comment ?? null,
        format_signature: signatures[i] ?? null,
        tag_id: tag.id,
        level: given.level ?? this.deps.taxonomy.configuredLevel(tag.default_level),
        locked: 0,
        review_status: 'unreviewed',
        embedding: encodeVector(embedding),
        embedder_version: this.deps.embedder.version,
        created_at: now,
        updated_at: now,
      };
    });
    return { rows, autoClassified };
  }

  /** Writes a prepared import inside `trx`; ids come back in input order. */
  private async writeImport(trx: Tx, datasource: DatasourceRow, prepared: PreparedImport): Promise<ImportFieldsResponse> {
    // Rows in key order: concurrent imports touching the same fields then lock them in the same order (no deadlock).
    const ordered = [...prepared.rows].sort((a, b) => compareKeys(a, b));
    const stored = await repo.upsertFields(trx, ordered);
    const idByKey = new Map(stored.map((s) => [fieldKey(s.table_name, s.field_name), s.id]));
    let created = 0;
    const fieldIds = prepared.rows.map((row) => {
      const id = idByKey.get(fieldKey(row.table_name, row.field_name));
      if (id === undefined) throw new Error(`import into ${datasource.id}: no id returned for ${row.table_name}.${row.field_name}`);
      if (id === row.id) created += 1;
      return id;
    });
    return { created, updated: fieldIds.length - created, field_ids: fieldIds };
  }
}

function compareKeys(a: NewFieldRow, b: NewFieldRow): number {
  if (a.table_name !== b.table_name) return a.table_name < b.table_name ? -1 : 1;
  if (a.field_name !== b.field_name) return a.field_name < b.field_name ? -1 : 1;
  return 0;
}

/** 400 naming both indexes when two rows of one call name the same table and field. */
function assertNoDuplicates(items: readonly ImportFieldItem[]): void {
  const seen = new Map<string, number>();
  const errors: ProblemFieldError[] = [];
  items.forEach((item, i) => {
    const key = fieldKey(item.table_name, item.field_name);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else errors.push({ path: `/fields/${i}`, message: `repeats ${item.table_name}.${item.field_name} of /fields/${first}` });
  });
  if (errors.length > 0) {
    const firstError = errors[0] as ProblemFieldError;
    throw new AppError('validation_failed', `Each table_name/field_name may appear once per import: ${firstError.path} ${firstError.message}`, {
      errors: errors.slice(0, MAX_REPORTED_ERRORS),
    });
  }
}

interface Candidate {
  tag: TagRow;
  anchor: Float32Array;
}

/** Automatic classification picks among leaf tags (the specific ones), by their anchors. */
function leafAnchors(anchors: TagAnchors): Candidate[] {
  const leaves = new Set(anchors.index.leaves.map((t) => t.id));
  return anchors.index.tags.flatMap((tag, i) => (leaves.has(tag.id) ? [{ tag, anchor: anchors.vectors[i] as Float32Array }] : []));
}

/** The candidate whose anchor is closest (cosine; all vectors are unit length) to the embedding. */
function nearestTag(candidates: readonly Candidate[], embedding: Float32Array): TagRow {
  let best: TagRow | undefined;
  let bestScore = -Infinity;
  for (const { tag, anchor } of candidates) {
    let dot = 0;
    for (let d = 0; d < embedding.length; d++) dot += (embedding[d] as number) * (anchor[d] as number);
    if (dot > bestScore) {
      bestScore = dot;
      best = tag;
    }
  }
  if (!best) throw unprocessable('There is no classification tag to classify fields with; create a tag first');
  return best;
}
