/**
 * What an import and a scan share before they write: validating the given classifications, embedding, classifying
 * every field from what it is itself, and the row each becomes; outside any transaction, so the writes stay short.
 * Internal to the fields module (the import of the API and the scan writer both use it).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { encodeVector, type Database } from '../../db/database.js';
import type { NewFieldRow, TagRow } from '../../db/schema.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { formatSignature } from '../../embeddings/format-signature.js';
import { AppError, unprocessable, type ProblemFieldError } from '../../http/errors.js';
import type { ClassifierService, Decision } from '../classifier/classifier.service.js';
import { formatFingerprint, type Classification } from '../classifier/index.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import * as repo from './fields.repository.js';
import type { ImportFieldItem } from './fields.schemas.js';

/** A bad import names at most this many problems (enough to fix a file; bounded for a 5000-row body). */
const MAX_REPORTED_ERRORS = 100;

/** Rows ready to write, and how many of them the classifier classified (given no tag). */
export interface PreparedImport {
  rows: NewFieldRow[];
  autoClassified: number;
}

export interface FieldPreparerDeps {
  database: Database;
  clock: Clock;
  embedder: Embedder;
  taxonomy: TaxonomyService;
  classifier: Pick<ClassifierService, 'classify' | 'versionKey'>;
}

export const fieldKey = (table: string, field: string): string => `${table}\u0000${field}`;

export class FieldPreparer {
  constructor(private readonly deps: FieldPreparerDeps) {}

  /**
   * Validation, classification and embeddings: everything but the writes. `tableColumnsOf(i)` gives the columns of
   * item i's table when the caller knows them (a scan); otherwise they are gathered from the batch and the stored fields.
   */
  async prepare(
    datasourceId: string,
    items: readonly ImportFieldItem[],
    tableColumnsOf?: (i: number) => readonly string[] | undefined,
  ): Promise<PreparedImport> {
    const index = await this.deps.taxonomy.tagIndex();
    const errors: ProblemFieldError[] = [];
    const resolved = items.map((item, i) => {
      const prefix = `/fields/${i}`;
      return this.deps.taxonomy.resolveWith(
        index,
        {
          tag_id: item.classification_tag_id ?? null,
          chain_path: item.classification_chain_path ?? null,
          level: item.level ?? null,
        },
        {
          tag_id: `${prefix}/classification_tag_id`,
          chain_path: `${prefix}/classification_chain_path`,
          level: `${prefix}/level`,
        },
        errors,
      );
    });
    if (errors.length > 0) {
      const shown = errors.slice(0, MAX_REPORTED_ERRORS);
      throw unprocessable(
        `${errors.length} field(s) refer to an unknown tag, chain path or level; nothing was imported`,
        shown,
      );
    }

    const signatures = items.map((item) =>
      item.sample_values && item.sample_values.length > 0 ? formatSignature(item.sample_values) : null,
    );
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
        // The label gap is measured against the given label; a field given none against the one it gets.
        label_tag_id: resolved[i]?.tag?.id ?? null,
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
      const level =
        given.level ??
        (given.tag ? this.deps.taxonomy.configuredLevel(given.tag.default_level) : (auto as Decision).level);
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
        predicted_label_gap: classified.labelGaps[i] ?? null,
        predicted_with: classified.versionKey,
        ...(auto
          ? {
              classification_source: auto.source,
              classification_confidence: auto.confidence,
              classification_evidence: JSON.stringify(auto.evidence),
              classified_with: classified.versionKey,
            }
          : {
              classification_source: 'import',
              classification_confidence: null,
              classification_evidence: null,
              classified_with: null,
            }),
        created_at: now,
        updated_at: now,
      };
    });
    return { rows, autoClassified: auto.length };
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
      const stored = await repo.listTableColumnNames(this.deps.database.db, datasourceId, [...out.keys()]);
      for (const [table, names] of stored) {
        const list = out.get(table) as string[];
        const known = new Set(list);
        for (const n of names) if (!known.has(n)) list.push(n);
      }
    }
    return out;
  }
}

/** Rows in catalog-key order (table, field): concurrent writers touching the same fields then lock them in the same order. */
export function compareKeys(a: NewFieldRow, b: NewFieldRow): number {
  if (a.table_name !== b.table_name) return a.table_name < b.table_name ? -1 : 1;
  if (a.field_name !== b.field_name) return a.field_name < b.field_name ? -1 : 1;
  return 0;
}

/** 400 naming both indexes when two rows of one call name the same table and field. */
export function assertNoDuplicates(items: readonly ImportFieldItem[]): void {
  const seen = new Map<string, number>();
  const errors: ProblemFieldError[] = [];
  items.forEach((item, i) => {
    const key = fieldKey(item.table_name, item.field_name);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else
      errors.push({
        path: `/fields/${i}`,
        message: `repeats ${item.table_name}.${item.field_name} of /fields/${first}`,
      });
  });
  if (errors.length > 0) {
    const firstError = errors[0] as ProblemFieldError;
    throw new AppError(
      'validation_failed',
      `Each table_name/field_name may appear once per import: ${firstError.path} ${firstError.message}`,
      {
        errors: errors.slice(0, MAX_REPORTED_ERRORS),
      },
    );
  }
}
