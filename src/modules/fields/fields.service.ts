/**
 * The field catalog of the API: importing fields (upsert, classification by tag id, chain path or automatically,
 * embeddings), one field, the list and the streamed export; and the prepared import the sample data writes under its
 * own lock. The other modules' uses of `fields` have services of their own in this module, one per group of uses: the
 * catalog read-only (field-catalog-reader), the review columns (field-review-state), a scan's writes
 * (field-scan-writer), the mirrored outlier scores (field-metrics-mirror) and other modules' deletions
 * (field-cascades). This module stays the only writer of `fields`; staleness of metrics is not its concern: the
 * database's change log records every committed change of a field (see docs/architecture.md).
 */
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import type { Clock } from '../../clock.js';
import type { Database, Tx } from '../../db/database.js';
import type { DatasourceRow } from '../../db/schema.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { notFound } from '../../http/errors.js';
import type { Actor, AuditService } from '../audit/audit.service.js';
import type { DatasourcesService } from '../datasources/datasources.service.js';
import type { ClassifierService } from '../classifier/classifier.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import { assertNoDuplicates, compareKeys, fieldKey, FieldPreparer, type PreparedImport } from './field-preparation.js';
import * as repo from './fields.repository.js';
import { csvHeader, csvRecords, ndjsonRecords, toExportRecord } from './fields-export.js';
import {
  FIELD_SORTS,
  isAutomaticSource,
  type ExportFormat,
  type FieldExportRecord,
  type FieldListQuery,
  type FieldListResponse,
  type FieldResponse,
  type FieldSort,
  type ImportFieldItem,
  type ImportFieldsBody,
  type ImportFieldsResponse,
} from './fields.schemas.js';

/** The filters of the list (and the export): its query without sort and paging. */
export type FieldListFilters = Omit<FieldListQuery, 'sort' | 'limit' | 'cursor'>;

/** Fields per page of an export: one query and one text chunk each. */
export const EXPORT_PAGE_SIZE = 1000;

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
        ? {
            tag_id: row.suggested_tag_id,
            chain_path: row.suggested_chain_path,
            level: row.suggested_level,
            confidence: round3(row.suggested_confidence ?? 0),
          }
        : null,
    classification_source: row.classification_source,
    classification_confidence: isAutomaticSource(row.classification_source)
      ? round3OrNull(row.classification_confidence)
      : null,
    classification_evidence: isAutomaticSource(row.classification_source)
      ? parseEvidence(row.classification_evidence)
      : [],
    scan_change:
      row.last_scan_id !== null && lastScans.get(row.datasource_id) === row.last_scan_id ? row.scan_change : null,
    updated_at: row.updated_at,
  };
}

/** The stored evidence (JSON written by this module); an unreadable value reads as none rather than failing a list. */
function parseEvidence(text: string | null): FieldResponse['classification_evidence'] {
  if (text === null) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return (value as FieldResponse['classification_evidence']).map((e) =>
      typeof e.score === 'number' ? { ...e, score: round3(e.score) } : e,
    );
  } catch {
    return [];
  }
}

function encodeFieldCursor(sort: FieldSort, key: repo.FieldKeyset): string {
  return encodeCursor({ s: sort, v: key.value, i: key.id });
}

function decodeFieldCursor(sort: FieldSort, cursor: string): repo.FieldKeyset {
  const numeric = sort === 'outlier_score' || sort === 'risk';
  return decodeCursor(
    cursor,
    ({ s, v, i }) => {
      if (s !== sort || !(FIELD_SORTS as readonly unknown[]).includes(s) || typeof i !== 'string' || i.length > 64)
        return undefined;
      if (
        numeric
          ? !(v === null || (typeof v === 'number' && Number.isFinite(v)))
          : typeof v !== 'string' || v.length > 256
      )
        return undefined;
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
  private readonly preparer: FieldPreparer;

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
  ) {
    this.preparer = new FieldPreparer(deps);
  }

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

  /** One page of fields, filtered and sorted, with the cursor of the next page (keyset on (sort key, id)). */
  async listFields(query: FieldListQuery): Promise<FieldListResponse> {
    const sort = query.sort;
    const after = query.cursor === undefined ? undefined : decodeFieldCursor(sort, query.cursor);
    const { filter, sourceStates } = await this.listFilter(query);
    // One row more than asked tells whether a next page exists without a count.
    const rows = await repo.listFields(this.db, filter, sort, after, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const next =
      rows.length > query.limit && last ? encodeFieldCursor(sort, { value: sortValue(sort, last), id: last.id }) : null;
    // A page of fields no scan wrote needs no scan states (scan_change is null for each).
    const lastScans = page.some((row) => row.last_scan_id !== null)
      ? new Map((await sourceStates()).map((s) => [s.id, s.last_scan_id]))
      : new Map<string, string | null>();
    return { items: page.map((row) => toFieldResponse(row, lastScans)), next_cursor: next };
  }

  /** The list's filters as repository terms, and the data sources' states (read once, and only when needed). */
  private async listFilter(
    query: FieldListFilters,
  ): Promise<{ filter: repo.FieldFilter; sourceStates: () => Promise<repo.SourceState[]> }> {
    const filter: repo.FieldFilter = {};
    if (query.datasource_id !== undefined) filter.datasource_id = query.datasource_id;
    if (query.review_status !== undefined) filter.review_status = query.review_status;
    if (query.severity !== undefined) filter.severity = query.severity;
    if (query.level !== undefined) filter.level = query.level;
    if (query.tag_id !== undefined) filter.tag_id = query.tag_id;
    if (query.q !== undefined) filter.q = query.q;
    let sources: repo.SourceState[] | undefined;
    const sourceStates = async () => (sources ??= await repo.listSourceStates(this.db));
    if (query.changed === 'last_scan')
      filter.last_scan_ids = (await sourceStates()).flatMap((s) => (s.last_scan_id === null ? [] : [s.last_scan_id]));
    if (!query.include_sample)
      filter.exclude_datasource_ids = (await sourceStates()).filter((s) => s.is_sample).map((s) => s.id);
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
    const readNames = async () =>
      new Map((await this.deps.datasources.listDatasourceNames()).map((d) => [d.id, d.name]));
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
        page = await repo.listFieldsForExport(
          db,
          filter,
          { datasource_id: last.datasource_id, table_name: last.table_name, field_name: last.field_name },
          EXPORT_PAGE_SIZE,
        );
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
    const prepared = await this.preparer.prepare(datasource.id, body.fields);
    return this.db.transaction().execute(async (trx) => {
      const result = await this.writeImport(trx, datasource, prepared);
      await this.deps.audit.record(trx, actor, {
        action: 'fields.imported',
        targetType: 'datasource',
        targetId: datasource.id,
        details: {
          datasource: datasource.name,
          fields: prepared.rows.length,
          created: result.created,
          updated: result.updated,
          auto_classified: prepared.autoClassified,
        },
      });
      return result;
    });
  }

  /**
   * Validates, classifies and embeds `items` now, outside any transaction (it reads tags and anchors); the returned
   * `writeInto(trx, datasource)` writes them inside the caller's transaction, with no audit entry of its own.
   * For the sample data, which loads several data sources under one lock.
   */
  async prepareFieldImport(
    items: readonly ImportFieldItem[],
  ): Promise<{ writeInto(trx: Tx, datasource: DatasourceRow): Promise<ImportFieldsResponse> }> {
    assertNoDuplicates(items);
    const prepared = await this.preparer.prepare('', items);
    return {
      writeInto: async (trx, datasource) => {
        const rows = prepared.rows.map((row) => ({ ...row, datasource_id: datasource.id }));
        return this.writeImport(trx, datasource, { rows, autoClassified: prepared.autoClassified });
      },
    };
  }

  /** Writes a prepared import inside `trx`; ids come back in input order. */
  private async writeImport(
    trx: Tx,
    datasource: DatasourceRow,
    prepared: PreparedImport,
  ): Promise<ImportFieldsResponse> {
    // Rows in key order: concurrent imports touching the same fields then lock them in the same order (no deadlock).
    const ordered = [...prepared.rows].sort((a, b) => compareKeys(a, b));
    const stored = await repo.upsertFields(trx, ordered);
    await repo.enqueueUnknownLabelGaps(
      trx,
      stored.map((s) => s.id),
      this.deps.clock.now().toISOString(),
    );
    const idByKey = new Map(stored.map((s) => [fieldKey(s.table_name, s.field_name), s.id]));
    let created = 0;
    const fieldIds = prepared.rows.map((row) => {
      const id = idByKey.get(fieldKey(row.table_name, row.field_name));
      if (id === undefined)
        throw new Error(`import into ${datasource.id}: no id returned for ${row.table_name}.${row.field_name}`);
      if (id === row.id) created += 1;
      return id;
    });
    return { created, updated: fieldIds.length - created, field_ids: fieldIds };
  }
}
