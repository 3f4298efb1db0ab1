/**
 * The field catalog, and the only writer of the `fields` table: importing fields (upsert, classification by tag id,
 * chain path or automatically, embeddings), reading and listing them, and — for the other modules, inside their
 * transactions — the review columns (review), the deletion of a data source's fields (data sources), and the
 * outlier score mirrored from the metrics (metrics). Staleness of metrics is not this module's concern: the
 * database's change log records every committed change of a field (see docs/architecture.md).
 */
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { encodeVector, type Database, type Tx } from '../../db/database.js';
import type { DatasourceRow, NewFieldRow, TagRow } from '../../db/schema.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { formatSignature } from '../../embeddings/format-signature.js';
import { AppError, notFound, unprocessable, type ProblemFieldError } from '../../http/errors.js';
import type { Actor, AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { ClassifierService } from '../classifier/classifier.service.js';
import { formatFingerprint, type Classification } from '../classifier/index.js';
import type { Decision } from '../classifier/classifier.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import * as repo from './fields.repository.js';

export type { CatalogFieldRow, InventoryCell, RemovedFieldRow, ReviewState, ScanBaselineRow } from './fields.repository.js';

/** A column a scan found, with its sampled values: held in memory only, never stored (only their format is). */
export interface ScannedColumn {
  table_name: string;
  field_name: string;
  data_type: string | null;
  comment: string | null;
  sample_values: string[];
  /** The names of all the columns of its table (one array per table): the classifier reads them as context. */
  table_columns?: readonly string[];
}

/** Scanned columns embedded and classified, ready to be written by `applyScan` in a short transaction. */
export interface PreparedScan {
  readonly rows: readonly NewFieldRow[];
}
import { csvHeader, csvRecords, ndjsonRecords, toExportRecord } from './fields-export.js';
import { FIELD_SORTS, isAutomaticSource, type ExportFormat, type FieldExportRecord, type FieldListQuery, type FieldListResponse, type FieldResponse, type FieldSort, type ImportFieldItem, type ImportFieldsBody, type ImportFieldsResponse } from './fields.schemas.js';

/** The filters of the list (and the export): its query without sort and paging. */
export type FieldListFilters = Omit<FieldListQuery, 'sort' | 'limit' | 'cursor'>;

/** Fields per page of an export: one query and one text chunk each. */
export const EXPORT_PAGE_SIZE = 1000;

/** A bad import names at most this many problems (enough to fix a file; bounded for a 5000-row body). */
const MAX_REPORTED_ERRORS = 100;

interface PreparedImport {
  rows: NewFieldRow[];
  autoClassified: number;
}

/** Scores as a reader uses them: 3 decimals (the list and the minibars answer; a 17-digit float only weighs on the wire). */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

const round3OrNull = (x: number | null): number | null => (x === null ? null : round3(x));

/**
 * A field in the API shape. `lastScans` maps each data source to its last finished scan: the field's scan_change
 * counts only when that scan wrote it.
 */
export function toFieldResponse(row: repo.FieldListRow, lastScans: ReadonlyMap<string, string | null>): FieldResponse {
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
    outlier_score: round3OrNull(row.outlier_score),
    severity: row.severity,
    suggested_classification:
      row.suggested_tag_id !== null && row.suggested_chain_path !== null && row.suggested_level !== null
        ? { tag_id: row.suggested_tag_id, chain_path: row.suggested_chain_path, level: row.suggested_level, confidence: round3(row.suggested_confidence ?? 0) }
        : null,
    classification_source: row.classification_source,
    classification_confidence: isAutomaticSource(row.classification_source) ? round3OrNull(row.classification_confidence) : null,
    classification_evidence: isAutomaticSource(row.classification_source) ? parseEvidence(row.classification_evidence) : [],
    scan_change: row.last_scan_id !== null && lastScans.get(row.datasource_id) === row.last_scan_id ? row.scan_change : null,
    updated_at: row.updated_at,
  };
}


/** The stored evidence (JSON written by this module); an unreadable value reads as none rather than failing a list. */
function parseEvidence(text: string | null): FieldResponse['classification_evidence'] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return (value as FieldResponse['classification_evidence']).map((e) => (typeof e.score === 'number' ? { ...e, score: round3(e.score) } : e));
  } catch {
    return [];
  }
}

const fieldKey = (table: string, field: string): string => `${table}\u0000${field}`;

function encodeFieldCursor(sort: FieldSort, key: repo.FieldKeyset): string {
  return encodeCursor({ s: sort, v: key.value, i: key.id });
}

function decodeFieldCursor(sort: FieldSort, cursor: string): repo.FieldKeyset {
  const numeric = sort === 'outlier_score' || sort === 'risk';
  return decodeCursor(
    cursor,
    ({ s, v, i }) => {
      if (s !== sort || !(FIELD_SORTS as readonly unknown[]).includes(s) || typeof i !== 'string' || i.length > 64) return undefined;
      if (numeric ? !(v === null || (typeof v === 'number' && Number.isFinite(v))) : typeof v !== 'string' || v.length > 256) return undefined;
      return { value: v as string | number | null, id: i };
    },
    'The cursor is not a next_cursor of this list and sort',
  );
}

function sortValue(sort: FieldSort, row: repo.FieldListRow): string | number | null {
  if (sort === 'name') return row.field_name;
  if (sort === 'updated_at') return row.updated_at;
  if (sort === 'risk') return row.risk;
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
      classifier: Pick<ClassifierService, 'classify' | 'versionKey'>;
    },
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** One field in the API shape, or 404. */
  async getField(id: string, trx?: Tx): Promise<FieldResponse> {
    const row = await repo.findFieldById(trx ?? this.db, id);
    if (!row) throw notFound('Field');
    return toFieldResponse(row, row.last_scan_id === null ? new Map() : await this.lastScans(trx));
  }

  /** The last finished scan of each data source (for scan_change). */
  private async lastScans(trx?: Tx): Promise<Map<string, string | null>> {
    return new Map((await repo.listSourceStates(trx ?? this.db)).map((s) => [s.id, s.last_scan_id]));
  }

  // ------------------------------------------------------------ review columns (the review module's writes)

  /** Reads and row-locks the review state of the fields, in id order, until `trx` ends; unknown ids are left out. */
  async lockReviewStates(trx: Tx, ids: readonly string[]): Promise<repo.ReviewState[]> {
    return repo.lockReviewStates(trx, ids);
  }

  /** Sets the confirmed, locked classification of fields that share one target (tag, level). */
  async confirmFields(trx: Tx, ids: readonly string[], change: { tag_id: number; level: string; reviewed_at: string; reviewed_by: string }): Promise<void> {
    await repo.confirmFields(trx, ids, change);
  }

  /** Marks one field deferred with the reviewer's reason; classification and lock stay as they are. */
  async deferField(trx: Tx, id: string, change: { reason: string; reviewed_at: string; reviewed_by: string }): Promise<void> {
    await repo.deferField(trx, id, change);
  }

  // ------------------------------------------------------------ scans (the scans module's writes)

  /** Every field of a data source as a scan compares it with the columns it finds. */
  async scanBaseline(datasourceId: string): Promise<repo.ScanBaselineRow[]> {
    return repo.listScanBaseline(this.db, datasourceId);
  }

  /**
   * Embeds and classifies new or changed scanned columns, outside any transaction (the samples stay in memory); rules
   * scoped to data sources apply when `datasourceId` is given.
   */
  async prepareScanFields(columns: readonly ScannedColumn[], datasourceId = ''): Promise<PreparedScan> {
    const items: ImportFieldItem[] = columns.map((c) => ({
      table_name: c.table_name,
      field_name: c.field_name,
      data_type: c.data_type,
      comment: c.comment,
      sample_values: c.sample_values,
    }));
    return { rows: (await this.prepareImport(datasourceId, items, (i) => columns[i]?.table_columns)).rows };
  }

  /**
   * Writes prepared scanned columns of a data source inside the caller's transaction: new ones are inserted, changed
   * ones updated; a confirmed, locked or import-given classification is kept, any other is replaced by the new one and
   * the field goes back to `unreviewed`. Each written field records that scan `scanId` made it new, changed or
   * re-classified it (the "changed since the last scan" view). 404 when the data source is gone.
   */
  async applyScan(trx: Tx, datasourceId: string, prepared: PreparedScan, scanId: string): Promise<void> {
    const rows = prepared.rows.map((row) => ({ ...row, datasource_id: datasourceId })).sort(compareKeys);
    await repo.upsertScannedFields(trx, rows, scanId);
  }

  /** Deletes fields of a data source whose columns a scan no longer found; answers them with their last classification. */
  async removeScannedFields(trx: Tx, datasourceId: string, ids: readonly string[]): Promise<repo.RemovedFieldRow[]> {
    return repo.deleteScannedFields(trx, datasourceId, ids);
  }

  /** Deletes every field of a data source inside the caller's transaction; returns how many. */
  async deleteFieldsOfDatasource(trx: Tx, datasourceId: string): Promise<number> {
    return repo.deleteFieldsOfDatasource(trx, datasourceId);
  }

  // ------------------------------------------------------------ the metrics' view of the catalog

  /** How many fields the catalog holds. */
  /** A page of the fields a classification rule could take (the classifier decides them), in id order. */
  async ruleCandidates(query: repo.RuleCandidateQuery): Promise<repo.RuleCandidateRow[]> {
    return repo.listRuleCandidates(this.db, query);
  }

  /** The fields a rule preview lists, with their table, name and current classification. */
  async ruleCandidateDetails(ids: readonly string[]): Promise<Array<{ id: string; table_name: string; field_name: string; chain_path: string; level: string }>> {
    return repo.findRuleCandidateDetails(this.db, ids);
  }

  /** Every declared type in the catalog, once. */
  async declaredDataTypes(): Promise<string[]> {
    return repo.listDeclaredDataTypes(this.db);
  }

  /** How many fields carry one of the tags as their classification, and how many as their suggestion. */
  async countFieldsOfTags(trx: Tx, tagIds: readonly number[]): Promise<{ classified: number; suggested: number }> {
    return repo.countFieldsOfTags(trx, tagIds);
  }

  /**
   * Moves the fields classified with (or suggested) one of the tags to another tag, keeping their level and review
   * state, in the caller's transaction (a tag deleted with a replacement; null: no field carries them, and suggestions
   * naming them are dropped). The change log recomputes their metrics.
   */
  async moveFieldsToTag(trx: Tx, fromTagIds: readonly number[], toTagId: number | null): Promise<number> {
    return repo.moveFieldsToTag(trx, fromTagIds, toTagId, this.deps.clock.now().toISOString());
  }

  async countFields(): Promise<number> {
    return repo.countFields(this.db);
  }

  /** The catalog counted by data source and level (fields, confirmed, deferred, high risk), from one aggregate query. */
  async countByDatasourceAndLevel(): Promise<repo.InventoryCell[]> {
    return repo.countByDatasourceAndLevel(this.db);
  }

  /** The catalog counted by tag and level, from one aggregate query. */
  async countByTag(): Promise<Array<{ tag_id: number; level: string; fields: number }>> {
    return repo.countByTag(this.db);
  }

  /** The fields confirmed now, counted by the UTC day of their confirmation (YYYY-MM-DD). */
  async confirmedByDay(): Promise<Array<{ day: string; n: number }>> {
    return repo.countConfirmedByDay(this.db);
  }

  /** One page of the catalog (id, tag, level, review status, embedding) in id order, after `afterId`. */
  async catalogPage(afterId: string | null, limit: number): Promise<repo.CatalogFieldRow[]> {
    return repo.listCatalogFields(this.db, afterId, limit);
  }

  /** The catalog rows of the given fields that exist, as `db` (a transaction, maybe) sees them. */
  async catalogRows(ids: readonly string[], trx?: Tx): Promise<repo.CatalogFieldRow[]> {
    return repo.findCatalogFields(trx ?? this.db, ids);
  }

  /** `table.field` and data source name of the given fields that exist. */
  async fieldNames(ids: readonly string[]): Promise<Map<string, { name: string; datasource: string }>> {
    return repo.findFieldNames(this.db, ids);
  }

  /** When each field was last reviewed and a digest of what it is itself (names, type, comment, value formats). */
  async reviewBases(ids: readonly string[]): Promise<Map<string, { reviewedAt: string | null; self: string }>> {
    return repo.findReviewBases(this.db, ids);
  }

  /** Which of the given ids name a field. */
  async existingIds(ids: readonly string[], trx?: Tx): Promise<Set<string>> {
    return repo.existingFieldIds(trx ?? this.db, ids);
  }

  /**
   * Locks the fields the metrics writer is about to store, in id order, skipping any a writer holds (PostgreSQL), and
   * answers the ids it holds; a skipped field is being changed and becomes stale again through that change.
   */
  async lockForMetrics(trx: Tx, ids: readonly string[]): Promise<Set<string>> {
    return repo.lockForMetrics(trx, ids);
  }

  /**
   * Mirrors outlier score and severity onto the field rows (locked with lockForMetrics in the same transaction);
   * answers the unreviewed fields whose severity became `high` by it (a finding.high_risk each).
   */
  async setOutlierScores(trx: Tx, rows: readonly repo.OutlierMirror[]): Promise<string[]> {
    const becameHigh = await repo.becomingHighRisk(trx, rows);
    await repo.setOutlierScores(trx, rows);
    return becameHigh;
  }


  /** One page of fields, filtered and sorted, with the cursor of the next page (keyset on (sort key, id)). */
  async listFields(query: FieldListQuery): Promise<FieldListResponse> {
    const sort = query.sort;
    const after = query.cursor === undefined ? undefined : decodeFieldCursor(sort, query.cursor);
    const { filter, sourceStates } = await this.listFilter(query);
    // One row more than asked tells whether a next page exists without a count.
    const rows = await repo.listFields(this.db, filter, sort, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const next = rows.length > query.limit && last ? encodeFieldCursor(sort, { value: sortValue(sort, last), id: last.id }) : null;
    // A page of fields no scan wrote needs no scan states (scan_change is null for each).
    const lastScans = page.some((row) => row.last_scan_id !== null) ? new Map((await sourceStates()).map((s) => [s.id, s.last_scan_id])) : new Map<string, string | null>();
    return { items: page.map((row) => toFieldResponse(row, lastScans)), next_cursor: next };
  }



  /** The list's filters as repository terms, and the data sources' states (read once, and only when needed). */
  private async listFilter(query: FieldListFilters): Promise<{ filter: repo.FieldFilter; sourceStates: () => Promise<repo.SourceState[]> }> {
    const filter: repo.FieldFilter = {};
    if (query.datasource_id !== undefined) filter.datasource_id = query.datasource_id;
    if (query.review_status !== undefined) filter.review_status = query.review_status;
    if (query.severity !== undefined) filter.severity = query.severity;
    if (query.level !== undefined) filter.level = query.level;
    if (query.tag_id !== undefined) filter.tag_id = query.tag_id;
    if (query.q !== undefined) filter.q = query.q;
    let sources: repo.SourceState[] | undefined;
    const sourceStates = async () => (sources ??= await repo.listSourceStates(this.db));
    if (query.changed === 'last_scan') filter.last_scan_ids = (await sourceStates()).flatMap((s) => (s.last_scan_id === null ? [] : [s.last_scan_id]));
    if (!query.include_sample) filter.exclude_datasource_ids = (await sourceStates()).filter((s) => s.is_sample).map((s) => s.id);
    return { filter, sourceStates };
  }

  /**
   * Every field matching the list's filters, as text chunks of `format` (one per page of EXPORT_PAGE_SIZE fields, CSV
   * with its header first), in catalog-key order (data source, table, field). Pages are read lazily by keyset, so the
   * consumer's pace sets the reading pace and memory stays flat whatever the catalog's size. The first page is read
   * before this returns: a bad filter or an unreachable database is still an error answer, not a cut download.
   */
  async exportFields(query: FieldListFilters, format: ExportFormat): Promise<AsyncIterable<string>> {
    const { filter } = await this.listFilter(query);
    const db = this.db;
    const readNames = async () => new Map((await this.deps.datasources.listDatasourceNames()).map((d) => [d.id, d.name]));
    let names = await readNames();
    const toRecords = async (rows: readonly repo.FieldListRow[]): Promise<FieldExportRecord[]> => {
      // A data source created during the export: its names are read again, once for the page.
      if (rows.some((row) => !names.has(row.datasource_id))) names = await readNames();
      return rows.map((row) => toExportRecord(row, names.get(row.datasource_id) ?? ''));
    };
    const encode = format === 'csv' ? csvRecords : ndjsonRecords;
    const first = await repo.listFieldsForExport(db, filter, undefined, EXPORT_PAGE_SIZE);
    return (async function* pages() {
      if (format === 'csv') yield csvHeader();
      let page = first;
      while (page.length > 0) {
        yield encode(await toRecords(page));
        const last = page[page.length - 1];
        if (!last || page.length < EXPORT_PAGE_SIZE) return;
        page = await repo.listFieldsForExport(db, filter, { datasource_id: last.datasource_id, table_name: last.table_name, field_name: last.field_name }, EXPORT_PAGE_SIZE);
      }
    })();
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
        return this.writeImport(trx, datasource, { rows, autoClassified: prepared.autoClassified });
      },
    };
  }

  /**
   * The column names of each imported table, the classifier's context: those in the batch and those already stored
   * for the data source (an import may send a table in several batches). One array per table.
   */
  private async tableColumns(datasourceId: string, items: readonly ImportFieldItem[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    for (const item of items) {
      const list = out.get(item.table_name);
      if (list) list.push(item.field_name);
      else out.set(item.table_name, [item.field_name]);
    }
    if (datasourceId !== '') {
      const stored = await repo.listTableColumnNames(this.db, datasourceId, [...out.keys()]);
      for (const [table, names] of stored) {
        const list = out.get(table) as string[];
        const known = new Set(list);
        for (const n of names) if (!known.has(n)) list.push(n);
      }
    }
    return out;
  }

  /** The stored column names of the given tables of a data source, by table name (the classifier's context on re-evaluation). */
  async tableColumnNames(datasourceId: string, tables: readonly string[]): Promise<Map<string, string[]>> {
    return repo.listTableColumnNames(this.db, datasourceId, tables);
  }

  /** Validation, classification and embeddings: everything but the writes, so the transaction stays short. */
  private async prepareImport(datasourceId: string, items: readonly ImportFieldItem[], tableColumnsOf?: (i: number) => readonly string[] | undefined): Promise<PreparedImport> {
    const index = await this.deps.taxonomy.tagIndex();
    const errors: ProblemFieldError[] = [];
    const resolved = items.map((item, i) => {
      const prefix = `/fields/${i}`;
      return this.deps.taxonomy.resolveWith(
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
    const valueSummaries = items.map((item) => formatFingerprint(item.sample_values));
    // Every field is classified from its own name, table, comment, type, samples and confirmed neighbours — never from
    // the label it comes with. Fields given no tag take that classification; for the others it is the classifier's
    // independent view, which the outlier model weighs against the given label (docs/metrics.md).
    const columns = tableColumnsOf ? undefined : await this.tableColumns(datasourceId, items);
    const classified = await this.deps.classifier.classify(
      items.map((item, i) => ({
        table_name: item.table_name,
        field_name: item.field_name,
        data_type: item.data_type ?? null,
        comment: item.comment ?? null,
        sample_values: item.sample_values ?? null,
        embedding: embeddings[i] as Float32Array,
        table_columns: tableColumnsOf ? (tableColumnsOf(i) ?? null) : (columns?.get(item.table_name) ?? null),
        datasource_id: datasourceId === '' ? null : datasourceId,
      })),
    );
    const auto = items.flatMap((item, i) => (resolved[i]?.tag === null ? [i] : []));
    const byItem = new Map(auto.map((i) => [i, classified.decisions[i] as Decision]));

    const now = this.deps.clock.now().toISOString();
    const rows = items.map((item, i): NewFieldRow => {
      const embedding = embeddings[i] as Float32Array;
      const given = resolved[i] as { tag: TagRow | null; level: string | null };
      const auto = byItem.get(i);
      const tagId = given.tag?.id ?? (auto as Decision).tag_id;
      const level = given.level ?? (given.tag ? this.deps.taxonomy.configuredLevel(given.tag.default_level) : (auto as Decision).level);
      return {
        id: randomUUID(),
        datasource_id: datasourceId,
        table_name: item.table_name,
        field_name: item.field_name,
        data_type: item.data_type ?? null,
        comment: item.comment ?? null,
        format_signature: signatures[i] ?? null,
        tag_id: tagId,
        level,
        locked: 0,
        review_status: 'unreviewed',
        embedding: encodeVector(embedding),
        embedder_version: this.deps.embedder.version,
        value_summary: valueSummaries[i] ?? null,
        predicted_tag_id: (classified.results[i] as Classification).tag_id,
        predicted_level: (classified.results[i] as Classification).level,
        predicted_confidence: (classified.results[i] as Classification).confidence,
        predicted_with: classified.versionKey,
        ...(auto
          ? { classification_source: auto.source, classification_confidence: auto.confidence, classification_evidence: JSON.stringify(auto.evidence), classified_with: classified.versionKey }
          : { classification_source: 'import', classification_confidence: null, classification_evidence: null, classified_with: null }),
        created_at: now,
        updated_at: now,
      };
    });
    return { rows, autoClassified: auto.length };
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
