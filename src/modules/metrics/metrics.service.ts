/**
 * Per-field metrics as the API shows them: embedding-minibars (the stored metrics of up to 500 fields plus their
 * list-dependent mean similarity and baseline) and the recomputation status. The metrics are computed in the
 * background (metrics-worker.ts) from this instance's replica of the catalog (catalog-replica.ts); what a change
 * makes stale is derived from the catalog change log (staleness.ts). docs/metrics.md describes the model.
 */
import { decodeVector, type Database, type Tx } from '../../db/database.js';
import type { FieldIdentity } from '../classifier/classifier.service.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { LicenseGate } from '../license/license.gate.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import {
  AXIS_KEYS,
  RAW_COLUMNS,
  SCORE_COLUMNS,
  perAxis,
  type AxisKey,
  type RawColumn,
  type ScoreColumn,
} from './axes.js';
import type { CatalogReplica } from './catalog-replica.js';
import { asStored, fieldKey, type CatalogState } from './catalog-state.js';
import { levelFit } from './fit-scores.js';
import * as repo from './metrics.repository.js';
import type { FieldMetricItem, MetricsStatusResponse, MinibarsBody, MinibarsResponse } from './metrics.schemas.js';
import type { MetricsWorker } from './metrics-worker.js';
import type { Staleness } from './staleness.js';
import { addInto, dot, normalize } from './vectors.js';

/** Nearest fields looked at for confirmed ones, per classified field. */
const CONFIRMED_NEIGHBOURS = 20;
const CONFIRMED_SEARCH_CHUNK = 200;

export interface MetricsServiceDeps {
  database: Database;
  replica: CatalogReplica;
  worker: Pick<MetricsWorker, 'computeNow'>;
  staleness: Pick<Staleness, 'pending'>;
  fields: Pick<FieldCatalogReader, 'existingIds' | 'countFields' | 'catalogRows'>;
  license: Pick<LicenseGate, 'assertFeature'>;
  taxonomy: Pick<TaxonomyService, 'tagIndex' | 'levelRank'>;
  dimensions: number;
}

export class MetricsService {
  constructor(private readonly deps: MetricsServiceDeps) {}

  /** Whether this instance has its in-memory catalog (loaded by the worker's first round, or on demand). */
  get catalogLoaded(): boolean {
    return this.deps.replica.current !== null;
  }

  /** Embedding-minibars for 1–500 fields: stored metrics plus the list-dependent mean similarity and baseline. */
  async minibars(body: MinibarsBody): Promise<MinibarsResponse> {
    await this.deps.license.assertFeature('embedding_metrics');
    const ids = [...new Set(body.field_ids)];
    let stored = await repo.findStoredMetrics(this.deps.database, ids);
    const have = new Set(stored.map((r) => r.field_id));
    const uncomputed = ids.filter((id) => !have.has(id));
    if (uncomputed.length > 0) {
      const existing = await this.deps.fields.existingIds(uncomputed);
      if (existing.size > 0) {
        // Not computed yet (just imported): compute on the spot rather than answer without metrics.
        await this.deps.worker.computeNow([...existing]);
        stored = stored.concat(await repo.findStoredMetrics(this.deps.database, [...existing]));
      }
    }
    const byId = new Map(stored.map((r) => [r.field_id, r]));
    const present = ids.filter((id) => byId.has(id));
    const missing = ids.filter((id) => !byId.has(id));
    const unit = await this.unitEmbeddings(present);
    const nearestIds = new Set<string>();
    for (const r of stored) if (r.nearest_field_id !== null) nearestIds.add(r.nearest_field_id);
    const nearestAlive = await this.existingFields([...nearestIds]);
    // Tag paths only when a suggestion needs one (one small query less for a list of fields that fit).
    const tags = stored.some((r) => r.suggested_tag_id !== null) ? await this.deps.taxonomy.tagIndex() : null;

    // mean cos to the other listed fields = e · (S − e) / (n − 1), with S the sum of the list's unit embeddings.
    const sum = new Float32Array(this.deps.dimensions);
    for (const e of unit.values()) addInto(sum, e, 1);
    const inList = unit.size;
    const rank = this.deps.taxonomy.levelRank();
    // A tag's level counts once per call: the fields of a queue page share a handful of tags.
    const levelsOfTag = new Map<number, ReturnType<CatalogState['tagLevels']>>();
    const items: FieldMetricItem[] = present.map((id) => {
      const r = byId.get(id) as repo.StoredMetricsRow;
      const e = unit.get(id);
      const mean = e && inList > 1 ? clampNum((dot(e, sum) - dot(e, e)) / (inList - 1), -1, 1) : 1;
      const path = r.suggested_tag_id !== null ? tags?.byId.get(r.suggested_tag_id)?.chain_path : undefined;
      const suggested =
        path !== undefined && r.suggested_level !== null
          ? {
              tag_id: r.suggested_tag_id as number,
              chain_path: path,
              level: r.suggested_level,
              confidence: f(r.suggested_confidence ?? 0),
            }
          : null;
      return toItem(
        r,
        mean,
        r.nearest_field_id !== null && nearestAlive.has(r.nearest_field_id),
        suggested,
        this.unusualLevel(id, rank, levelsOfTag),
      );
    });
    const baseline = perAxis((k) =>
      items.length === 0 ? 0 : f(items.reduce((s, it) => s + it.scores[k], 0) / items.length),
    );
    return { items, baseline_scores: baseline, field_count: items.length, missing_field_ids: missing };
  }

  /**
   * Unit embeddings of the given fields: from the in-memory catalog once it is loaded; while the instance is still
   * loading it (minutes at a million fields), from the database, so that requests are not held up meanwhile.
   */
  private async unitEmbeddings(ids: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (!this.deps.replica.current) {
      for (const row of await this.deps.fields.catalogRows(ids)) {
        const e = row.embedding ? decodeVector(row.embedding) : null;
        if (e && e.length === this.deps.dimensions) out.set(row.id, asStored(e));
      }
      return out;
    }
    const state = await this.deps.replica.ensure();
    for (const id of ids) {
      const slot = state.slot(id);
      if (slot !== undefined) out.set(id, state.embedding(slot));
    }
    return out;
  }

  /** Whether the field's level is unusual for its tag (levelFit < 1), from the replica; null while it loads. */
  private unusualLevel(
    id: string,
    rank: (level: string) => number,
    levelsOfTag: Map<number, ReturnType<CatalogState['tagLevels']>>,
  ): FieldMetricItem['unusual_level'] {
    const state = this.deps.replica.current;
    const slot = state?.slot(id);
    if (!state || slot === undefined) return null;
    const level = state.level(slot);
    const tagId = state.tagOf[slot] as number;
    let levels = levelsOfTag.get(tagId);
    if (!levels) levelsOfTag.set(tagId, (levels = state.tagLevels(tagId)));
    const fit = levelFit(levels, level, state.isConfirmed(slot), rank);
    return fit.fit < 1 ? { level, peers_at_level: fit.atLevel, peers: fit.of, usual_level: fit.usual } : null;
  }

  /**
   * Which of the given fields still exist (a field named as nearest may have been deleted since; its deletion made
   * the fields that named it stale). From the replica once it is loaded — unitEmbeddings has just brought it up to
   * date — else from the database.
   */
  private async existingFields(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const state = this.deps.replica.current;
    if (!state) return this.deps.fields.existingIds(ids);
    return new Set(ids.filter((id) => state.slot(id) !== undefined));
  }

  /**
   * For each unit embedding, the confirmed fields among its nearest fields in the catalog (with similarity, tag and
   * level): the organisation's own decisions, which the classifier weighs. A query's own field (`selves[i]`: its data
   * source, table and column) is left out: a reviewer's decision on a field is not the classifier's view of it, and
   * counting it would erase the record of what the reviewer corrected at its next re-evaluation. Empty lists until
   * this instance has loaded its replica (an import is not held up for minutes at a million fields).
   */
  async confirmedNeighbours(
    embeddings: readonly Float32Array[],
    selves: ReadonlyArray<FieldIdentity | null> = [],
  ): Promise<Array<Array<{ similarity: number; tag_id: number; level: string }>>> {
    const state = this.deps.replica.current;
    if (!state || embeddings.length === 0) return embeddings.map(() => []);
    await this.deps.replica.sync();
    // No confirmed field anywhere (a first import): nothing to search for.
    if (![...state.tags.values()].some((t) => t.confirmedCount > 0)) return embeddings.map(() => []);
    const out: Array<Array<{ similarity: number; tag_id: number; level: string }>> = [];
    for (let i = 0; i < embeddings.length; i += CONFIRMED_SEARCH_CHUNK) {
      const found = await state.search(
        embeddings.slice(i, i + CONFIRMED_SEARCH_CHUNK).map(normalize),
        CONFIRMED_NEIGHBOURS,
      );
      found.forEach((f, q) => {
        const self = fieldKey(selves[i + q] ?? {}) ?? 0;
        const list: Array<{ similarity: number; tag_id: number; level: string }> = [];
        f.keys.forEach((slot, j) => {
          if (state.holds(slot) && state.isConfirmed(slot) && !state.isField(slot, self))
            list.push({
              similarity: f.similarities[j] ?? 0,
              tag_id: state.tagOf[slot] as number,
              level: state.level(slot),
            });
        });
        out.push(list);
      });
    }
    return out;
  }

  /**
   * How many fields wait for recomputation (0 means every stored metric reflects every committed change), how many
   * exist, and when metrics were last written.
   */
  async status(): Promise<MetricsStatusResponse> {
    const db = this.deps.database.db;
    return {
      pending: await this.deps.staleness.pending(),
      fields: await this.deps.fields.countFields(),
      last_updated_at: await repo.lastComputedAt(db),
    };
  }

  /** Stored suggestions naming deleted tags name their replacement (null: no suggestion), in the deleting transaction. */
  async retargetSuggestions(trx: Tx, fromTagIds: readonly number[], toTagId: number | null): Promise<void> {
    await repo.retargetSuggestions(trx, fromTagIds, toTagId);
  }
}

function clampNum(x: number, lo: number, hi: number): number {
  if (!Number.isFinite(x)) return 0;
  return x < lo ? lo : x > hi ? hi : x;
}

/** One value per axis from the stored columns (a plain loop: this runs twice for each of up to 500 items per request). */
function axisValues(
  r: repo.StoredMetricsRow,
  columns: readonly (RawColumn | ScoreColumn)[],
  f: (x: number) => number,
): Record<AxisKey, number> {
  const out = {} as Record<AxisKey, number>;
  for (let i = 0; i < AXIS_KEYS.length; i++) out[AXIS_KEYS[i] as AxisKey] = f(r[columns[i] as RawColumn | ScoreColumn]);
  return out;
}

/** Scores as a reader (and a minibar) can use them: 3 decimals; not finite → 0. A 17-digit float only weighs on the wire. */
function f(x: number): number {
  return Number.isFinite(x) ? Math.round(x * 1000) / 1000 : 0;
}

function toItem(
  r: repo.StoredMetricsRow,
  meanSimilarity: number,
  nearestExists: boolean,
  suggested: FieldMetricItem['suggested_classification'],
  unusualLevel: FieldMetricItem['unusual_level'],
): FieldMetricItem {
  return {
    field_id: r.field_id,
    scores: axisValues(r, SCORE_COLUMNS, f),
    raw_scores: axisValues(r, RAW_COLUMNS, f),
    category_similarity: f(r.category_similarity),
    centroid_similarity: f(r.centroid_similarity),
    mean_similarity: f(meanSimilarity),
    outlier_score: f(r.outlier_score),
    severity: r.severity,
    nearest_field_id: nearestExists ? r.nearest_field_id : null,
    nearest_field_name: nearestExists ? r.nearest_field_name : null,
    // A nearest field deleted since is never cited: its deletion re-queued this field, whose new reason will not name it.
    reason:
      nearestExists || r.nearest_field_name === null || !r.reason.includes(`\`${r.nearest_field_name}\``)
        ? r.reason
        : 'Being re-evaluated: a field it was compared with has been deleted.',
    suggested_classification: suggested,
    unusual_level: unusualLevel,
  };
}
