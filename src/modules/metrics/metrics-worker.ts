/**
 * The metrics worker of one instance. Each round it expands the catalog changes not yet expanded into the queue of
 * stale fields (staleness.ts), then claims batches from that queue — shared by every instance through the database —
 * and recomputes them from the in-memory replica: the pure measurement of each field (measure-field.ts), its
 * normalisation against the catalog's distributions (axes.ts), the outlier model (outlier-model.ts) and the reason
 * (reason.ts). A batch's metrics, the fields' mirrored outlier scores and the queue completion commit together.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { Rounds } from '../../background/rounds.js';
import { yieldLocksAfter, type Database } from '../../db/database.js';
import type { Claim, WorkQueue } from '../../db/work-queue.js';
import type { FieldCatalogReader } from '../fields/field-catalog-reader.service.js';
import type { FieldMetricsMirror } from '../fields/field-metrics-mirror.service.js';
import type { WebhookEvents } from '../webhooks/webhooks.service.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { Neighbours } from './ann-threads.js';
import { buildAxisDistributions, normalizeAxes, perAxis, type AxisDistributions } from './axes.js';
import type { CatalogReplica } from './catalog-replica.js';
import { hashSampleLimit, type CatalogState, type RememberedRaw } from './catalog-state.js';
import {
  buildFitCalibration,
  FIT_SAMPLE,
  fitScores,
  levelFit,
  type FitCalibration,
  type FitSource,
  type TagLevelFit,
} from './fit-scores.js';
import {
  classificationEvidence,
  groupCohesion,
  marginScale,
  measureField,
  reviewedEvidence,
  type ClassificationEvidence,
  type FieldMeasurement,
  type Neighbour,
  type ReviewedEvidence,
  type TagStats,
} from './measure-field.js';
import * as repo from './metrics.repository.js';
import { outlierScore, outlierTerms, severityOf, type OutlierInput, type SeverityThresholds } from './outlier-model.js';
import { REASON_NEIGHBOURS, reasonFor, type ReasonInput, type ReasonNeighbour } from './reason.js';
import { riskOf, suggestClassification, type SuggestionInput } from './suggestion.js';
import { BACKGROUND_LOCK_WAIT_MS, NEIGHBOURS_K, type Staleness } from './staleness.js';
import { addInto, normalize } from './vectors.js';

/**
 * Per-axis distributions and margin scales summarise at least this many fields (the whole catalog when smaller):
 * fields are measured for them before their own turn when needed. 5,000 values put a percentile within ±1%.
 */
export const DISTRIBUTION_SAMPLE = 5000;
/**
 * …and at most about this many: beyond it they are built from a hash sample of the remembered values, so that
 * rebuilding them (every 5% of the catalog recomputed) stays a few milliseconds at a million fields.
 */
export const DISTRIBUTION_BASIS = 50_000;
/** A tag's anchor learns from its confirmed fields once it has this many. */
export const CONFIRMED_FOR_ANCHOR = 3;
const BATCH = 1000;
/** Fields computed between two turns of the event loop (~10–20 ms of work), so requests are not held up. */
const YIELD_EVERY = 50;
/** Fields per search request to the index threads (a batch's requests are all sent at once; the threads work ahead). */
const SEARCH_CHUNK = 50;

export interface MetricsWorkerDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  queue: WorkQueue;
  replica: CatalogReplica;
  staleness: Staleness;
  fields: Pick<FieldCatalogReader, 'fieldNames' | 'reviewBases'>;
  /** The outlier scores mirrored onto the field rows, in the storing transaction. */
  mirror: Pick<FieldMetricsMirror, 'lockForMetrics' | 'setOutlierScores'>;
  taxonomy: Pick<TaxonomyService, 'tagAnchors' | 'levelRank'>;
  severity: SeverityThresholds;
  /** finding.high_risk goes out through it, in the storing transaction. */
  webhooks?: WebhookEvents;
}

/** A claimed batch whose neighbour searches have been sent to the index threads. */
interface Prepared {
  state: CatalogState;
  /** The batch's fields in measuring order (same tag together), each with its search, SEARCH_CHUNK per request. */
  ids: string[];
  searches: Array<Promise<Neighbours[]>>;
}

interface Scales {
  peer: number;
  anchor: number;
}

/** A field's measurement with what the row needs of its neighbourhood as it was when measured. */
interface Measured extends FieldMeasurement {
  id: string;
  tagId: number;
  level: string;
  nearest: (Neighbour & { id: string }) | undefined;
  neighbours: Array<Neighbour & { id: string }>;
  evidence: ClassificationEvidence;
  predicted: { tagId: number; level: string; confidence: number; labelGap: number | null } | null;
  confirmed: boolean;
  reviewed: ReviewedEvidence;
  /** For a confirmed field: its evidence without the classifier's view, which weighs once it is unchanged since. */
  reviewerEvidence?: () => ClassificationEvidence;
}

/**
 * A suggestion is offered from this outlier score on (or the medium threshold when lower): below it the current
 * classification is taken as the best. Lower than `medium` so that a field the evidence doubts but cannot yet call
 * likely wrong (a lone field in a small catalog, known only from its own name and formats) still shows the alternative.
 */
export const SUGGEST_FROM = 0.15;

export class MetricsWorker {
  private readonly times = { expandMs: 0, claimMs: 0, computeMs: 0, saveMs: 0, fields: 0 };
  private distributions: AxisDistributions | null = null;
  /** The bars' calibration (fit-scores.ts), rebuilt with the distributions, and the distributions it was built with. */
  private fit: FitCalibration | null = null;
  private fitFor: AxisDistributions | null = null;
  /** The catalog (and its version) the bars' calibration was drawn from. */
  private fitOf: { state: CatalogState; version: number } | null = null;
  private scales: Scales | undefined;
  private rawsAtBuild = 0;
  private computedSinceBuild = 0;
  /** The replica the distributions were built from, and its version when the distribution sample was last completed. */
  private seenState: CatalogState | null = null;
  private covered: { state: CatalogState; version: number } | null = null;
  private readonly worker = randomUUID();
  /** One round at a time: two interleaved rounds would only compete for the same thread and evict each other's peer samples from the CPU cache. */
  private readonly rounds: Rounds;
  /** Set when the replica was (re)loaded: fields nobody queued (bulk loads, upgrades) are queued by the next round. */
  private needsUncomputedQueued = false;
  /** Callers of settled(), resolved by the first background round that ends with nothing pending. */
  private waiters: Array<() => void> = [];
  /** When set (bench/quality/fit.ts), every stored field's outlier-model input is recorded here by field id. */
  featureLog: Map<string, OutlierInput> | null = null;
  /** Set with featureLog (bench/quality/fit-suggestion.ts): every stored suggestion's source, outlier score and share of the support by field id. */
  suggestionLog: Map<string, { by: string; score: number; share: number }> | null = null;
  /** When set (bench/quality/suggestion-sources.ts), every field's suggestion input, with or without a suggestion, by field id. */
  suggestionInputLog: Map<string, SuggestionInput> | null = null;

  constructor(private readonly deps: MetricsWorkerDeps) {
    this.rounds = new Rounds('metrics worker', deps.log, async (background) => {
      await this.round(!background);
      if (background) await this.notifySettled();
    });
  }

  /** Cumulative wall time of the worker's phases and fields computed, since start (printed by bench/metrics). */
  get workTimes(): Readonly<typeof this.times & { loadMs: number }> {
    return { ...this.times, loadMs: this.deps.replica.loadMs };
  }

  /** Starts the background rounds (every `intervalMs`: expand changes, recompute stale fields). */
  start(intervalMs = 1000): void {
    this.rounds.start(intervalMs);
  }

  /** Stops the rounds and waits for the one in progress. */
  async stop(): Promise<void> {
    await this.rounds.stop();
  }

  /**
   * Works until nothing is pending — every committed change expanded, every stale field recomputed — waiting for
   * entries other instances hold; for tests, benchmarks and the metrics of a field asked for before its turn.
   */
  async drain(timeoutMs = 120_000): Promise<void> {
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.rounds.runNow();
      if ((await this.deps.staleness.pending()) === 0) return;
      // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
      if (Date.now() > deadline) throw new Error('metrics drain timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Resolves once a background round (start()) has ended with nothing pending anywhere: every committed change, by
   * any instance, has reached the stored metrics. For tests of the background work: an event to wait on, not a clock.
   */
  settled(): Promise<void> {
    // The worker's timer does not hold the process open; a waiter does, until it is answered.
    const alive = setInterval(() => undefined, 60_000);
    return new Promise<void>((resolve) => this.waiters.push(resolve)).finally(() => clearInterval(alive));
  }

  private async notifySettled(): Promise<void> {
    if (this.waiters.length === 0 || (await this.deps.staleness.pending()) > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** Computes and stores the metrics of the given fields now (ones asked for that have none yet). */
  async computeNow(ids: readonly string[]): Promise<void> {
    const state = await this.deps.replica.ensure();
    await this.store(await this.computeFields(this.prepare(state, ids)), []);
  }

  private async round(untilEmpty: boolean): Promise<void> {
    await this.replicaState();
    if (this.needsUncomputedQueued) {
      await this.deps.database.db.transaction().execute(async (trx) => {
        await yieldLocksAfter(trx, BACKGROUND_LOCK_WAIT_MS);
        await repo.enqueueUncomputed(trx, this.deps.clock.now().toISOString(), randomUUID());
      });
      this.needsUncomputedQueued = false;
      await this.deps.queue.analyze();
    }
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const started = performance.now();
    await this.deps.staleness.expandAll();
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    this.times.expandMs += performance.now() - started;
    await this.processQueue(untilEmpty);
  }

  /** The replica, up to date; after a (re)load, the distributions are rebuilt and fields nobody queued are queued next round. */
  private async replicaState(): Promise<CatalogState> {
    const state = await this.deps.replica.ensure();
    if (state !== this.seenState) {
      this.seenState = state;
      this.covered = null;
      this.rebuildDistributions(state);
      this.needsUncomputedQueued = true;
    }
    return state;
  }

  /**
   * Claims and recomputes batches until the queue has nothing claimable. The next batch is claimed, and its
   * neighbour searches sent to the index threads, before the current one is stored: they search while this writes.
   */
  private async processQueue(untilEmpty: boolean): Promise<void> {
    let current = await this.claimBatch(untilEmpty);
    while (current) {
      const rows = await this.computeFields(current.prepared);
      const next = await this.claimBatch(untilEmpty);
      await this.store(rows, current.claims);
      current = next;
    }
  }

  private async claimBatch(untilEmpty: boolean): Promise<{ claims: Claim[]; prepared: Prepared } | null> {
    if (this.rounds.stopped && !untilEmpty) return null;
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const now = new Date(Math.max(this.deps.clock.now().getTime(), Date.now()));
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const started = performance.now();
    const claims = await this.deps.queue.claim(this.worker, now, BATCH);
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    this.times.claimMs += performance.now() - started;
    if (claims.length === 0) return null;
    // Claimed after the change committed: the replica sees it now.
    const state = await this.replicaState();
    return {
      claims,
      prepared: this.prepare(
        state,
        claims.map((c) => c.key),
      ),
    };
  }

  /**
   * Stores a batch in one transaction: locks the field rows (skipping any a writer holds: it is changing them, and
   * they will be stale again), stores their metrics, mirrors outlier score and severity onto them, completes their
   * claims and gives the skipped ones back.
   */
  private async store(
    rows: ReadonlyArray<repo.FieldMetricsRow & { risk: number }>,
    claims: readonly Claim[],
  ): Promise<void> {
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const started = performance.now();
    await this.deps.database.db.transaction().execute(async (trx) => {
      await yieldLocksAfter(trx, BACKGROUND_LOCK_WAIT_MS);
      const locked = await this.deps.mirror.lockForMetrics(
        trx,
        rows.map((r) => r.field_id),
      );
      const kept = rows.filter((r) => locked.has(r.field_id));
      await repo.saveMetrics(
        trx,
        this.deps.database.kind,
        kept.map(({ risk: _risk, ...row }) => row),
      );
      const becameHigh = await this.deps.mirror.setOutlierScores(
        trx,
        kept.map((r) => ({
          id: r.field_id,
          outlier_score: r.outlier_score,
          severity: r.severity,
          risk: r.risk,
          suggested_tag_id: r.suggested_tag_id,
          suggested_level: r.suggested_level,
          suggested_confidence: r.suggested_confidence,
        })),
      );
      if (becameHigh.length > 0 && this.deps.webhooks) {
        const byId = new Map(kept.map((r) => [r.field_id, r]));
        await this.deps.webhooks.emit(
          trx,
          becameHigh.map((id) => {
            const r = byId.get(id);
            return {
              type: 'finding.high_risk' as const,
              data: {
                field_id: id,
                severity: 'high',
                outlier_score: r?.outlier_score ?? null,
                risk: r?.risk ?? null,
                suggested_level: r?.suggested_level ?? null,
              },
            };
          }),
        );
      }
      const computed = new Set(kept.map((r) => r.field_id));
      const skipped = new Set(rows.filter((r) => !locked.has(r.field_id)).map((r) => r.field_id));
      // A claimed field that no longer exists (or is not in the replica yet) is done: its deletion or insertion is its own change.
      await this.deps.queue.complete(
        trx,
        claims.filter((c) => computed.has(c.key) || !skipped.has(c.key)),
      );
      await this.deps.queue.release(
        trx,
        claims.filter((c) => skipped.has(c.key)),
      );
    });
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    this.times.saveMs += performance.now() - started;
    this.times.fields += rows.length;
  }

  /** Orders a batch for measuring (same tag together) and sends its neighbour searches to the index threads. */
  private prepare(state: CatalogState, ids: readonly string[]): Prepared {
    // Same-tag fields one after another: they share the peer sample, which then stays in the CPU cache.
    const order = ids
      .flatMap((id) => {
        const slot = state.slot(id);
        return slot === undefined ? [] : [{ id, slot, tagId: state.tagOf[slot] as number }];
      })
      .sort((a, b) => a.tagId - b.tagId);
    return {
      state,
      ids: order.map((o) => o.id),
      searches: this.searchAhead(
        state,
        order.map((o) => o.slot),
      ),
    };
  }

  /** Sends the slots' neighbour searches to the index threads, SEARCH_CHUNK per request, all at once. */
  private searchAhead(state: CatalogState, slots: readonly number[]): Array<Promise<Neighbours[]>> {
    const searches: Array<Promise<Neighbours[]>> = [];
    for (let i = 0; i < slots.length; i += SEARCH_CHUNK) {
      const search = state.search(
        slots.slice(i, i + SEARCH_CHUNK).map((slot) => state.embedding(slot)),
        NEIGHBOURS_K + 1,
      );
      // Awaited in order by measureAll; a failure is reported there, not as an unhandled rejection meanwhile.
      search.catch(() => undefined);
      searches.push(search);
    }
    return searches;
  }

  /**
   * Measures the fields in order, each with its searched neighbours. Every YIELD_EVERY fields requests get the event
   * loop — and may change the catalog, so each field's slot is looked up when its turn comes.
   */
  private async measureAll(
    state: CatalogState,
    ids: readonly string[],
    searches: ReadonlyArray<Promise<Neighbours[]>>,
    measure: (slot: number, found: Neighbours) => void,
  ): Promise<void> {
    for (let c = 0; c < searches.length; c++) {
      const found = await (searches[c] as Promise<Neighbours[]>);
      for (let j = 0; j < found.length; j++) {
        const i = c * SEARCH_CHUNK + j;
        if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        const slot = state.slot(ids[i] as string);
        if (slot !== undefined) measure(slot, found[j] as Neighbours);
      }
    }
  }

  /** Distributions and margin scales from the remembered values (a hash sample of DISTRIBUTION_BASIS beyond that size). */
  private rebuildDistributions(state: CatalogState): void {
    const values: RememberedRaw[] = state.rememberedSample(hashSampleLimit(DISTRIBUTION_BASIS, state.size));
    this.distributions = values.length > 0 ? buildAxisDistributions(values.map((v) => v.raw)) : null;
    const peer = values.flatMap((v) => (v.peer === null ? [] : [v.peer]));
    const anchor = values.flatMap((v) => (v.anchor === null ? [] : [v.anchor]));
    this.scales =
      peer.length >= 20 && anchor.length >= 20 ? { peer: marginScale(peer), anchor: marginScale(anchor) } : undefined;
    this.rawsAtBuild = state.rawCount;
    this.computedSinceBuild = 0;
  }

  /**
   * Measures the fields of the distribution sample that have no remembered raw values; true when it measured any.
   * The sample is the whole catalog up to DISTRIBUTION_SAMPLE fields, else the fields whose id hash falls below
   * the matching share of the hash range (a deterministic, uniform sample that stays stable as the catalog grows).
   */
  private async coverDistributionSample(
    state: CatalogState,
    measure: (slot: number, found: Neighbours) => unknown,
  ): Promise<boolean> {
    const limit = hashSampleLimit(DISTRIBUTION_SAMPLE, state.size);
    const slots: number[] = [];
    for (let slot = 0; slot < state.slotCount; slot++) {
      if (state.holds(slot) && (state.hashOf[slot] as number) < limit && !state.hasRemembered(slot)) slots.push(slot);
    }
    if (slots.length === 0) return false;
    await this.measureAll(
      state,
      slots.map((slot) => state.idOf(slot) as string),
      this.searchAhead(state, slots),
      measure,
    );
    return true;
  }

  /** Each tag's unit anchor — the text anchor, blended with the mean of its confirmed fields once there are enough — and member sums. */
  private async tagStats(state: CatalogState): Promise<{
    stats: TagStats[];
    anchorOf: Map<number, Float32Array>;
    label: (tagId: number, level: string | null) => string;
    defaultLevel: (tagId: number) => string | null;
    groupOf: (tagId: number) => string;
    tagIdOf: (chainPath: string) => number | undefined;
  }> {
    const anchors = await this.deps.taxonomy.tagAnchors();
    const tagIndex = anchors.index;
    const anchorOf = new Map<number, Float32Array>();
    tagIndex.tags.forEach((tag, i) => {
      const vector = anchors.vectors[i];
      if (!vector || vector.length !== state.dimensions) return;
      const text = normalize(vector);
      const t = state.tags.get(tag.id);
      if (t && t.confirmedCount >= CONFIRMED_FOR_ANCHOR) {
        const blended = normalize(t.confirmedSum);
        addInto(blended, text, 1);
        anchorOf.set(tag.id, normalize(blended));
      } else {
        anchorOf.set(tag.id, text);
      }
    });
    const stats: TagStats[] = [];
    for (const [tagId, anchor] of anchorOf) {
      const t = state.tags.get(tagId);
      stats.push({ tagId, anchor, sum: t?.sum ?? null, count: t?.count ?? 0 });
    }
    const label = (tagId: number, level: string | null): string => {
      const path = tagIndex.byId.get(tagId)?.chain_path ?? `tag ${tagId}`;
      return level === null ? path : `${path} (${level})`;
    };
    const defaultLevel = (tagId: number): string | null => tagIndex.byId.get(tagId)?.default_level ?? null;
    const groupOf = (tagId: number): string => {
      const path = tagIndex.byId.get(tagId)?.chain_path ?? `tag ${tagId}`;
      const i = path.indexOf('/');
      return i < 0 ? path : path.slice(0, i);
    };
    const tagIdOf = (chainPath: string): number | undefined => tagIndex.byPath.get(chainPath)?.id;
    return { stats, anchorOf, label, defaultLevel, groupOf, tagIdOf };
  }

  /** Computes the metrics of the given fields from the in-memory catalog (fields it does not hold are skipped). */
  private async computeFields(prepared: Prepared): Promise<ComputedRow[]> {
    const { state } = prepared;
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    const started = performance.now();
    const tags = await this.tagContext(state);
    const measure = (slot: number, found: Neighbours): Measured => measureSlot(state, tags, slot, found);
    const pre: Measured[] = [];
    await this.measureAll(state, prepared.ids, prepared.searches, (slot, found) => {
      pre.push(measure(slot, found));
      this.computedSinceBuild++;
    });
    await this.calibrate(state, tags.anchorOf, measure);
    // Names are read for the reasons only (the replica keeps no names: ~60 bytes per field at 1M fields).
    const names = await this.deps.fields.fieldNames([
      ...new Set(pre.flatMap((m) => (m.nearest ? [m.nearest.id] : []))),
    ]);
    const bases = await this.confirmedBases(pre);
    const computedAt = this.deps.clock.now().toISOString();
    // eslint-disable-next-line no-restricted-properties -- real time: phase timings, drain deadline, queue claims never before the injected clock
    this.times.computeMs += performance.now() - started;
    const scored = pre.map((m) => this.scoreField(state, tags, m, { names, bases, computedAt }));
    return this.withReasons(scored, names);
  }

  /** The tags' stats and names (tagStats) with the level ranks and each tag's usual level. */
  private async tagContext(state: CatalogState): Promise<TagContext> {
    const tags = await this.tagStats(state);
    const rank = this.deps.taxonomy.levelRank();
    const usualLevel = (tagId: number): string | null => {
      let best: { level: string; count: number } | null = null;
      for (const l of state.tagLevels(tagId))
        if (!best || l.count > best.count || (l.count === best.count && rank(l.level) > rank(best.level))) best = l;
      return best?.level ?? tags.defaultLevel(tagId);
    };
    return { ...tags, rank, usualLevel };
  }

  /**
   * Percentiles and margin scales must describe the whole catalog, not the part computed so far: otherwise the
   * first fields of a new catalog would be ranked against each other alone, and a field's stored scores would
   * depend on when it happened to be computed. So, before normalising, the raw values are completed over the
   * distribution sample (the whole catalog up to DISTRIBUTION_SAMPLE fields, beyond that the fields with the
   * smallest id hash); they are only measured, not stored (each is stored when its own turn comes). The bars'
   * calibration follows the distributions.
   */
  private async calibrate(
    state: CatalogState,
    anchorOf: ReadonlyMap<number, Float32Array>,
    measure: (slot: number, found: Neighbours) => unknown,
  ): Promise<void> {
    if (this.covered?.state !== state || this.covered.version !== state.version) {
      this.covered = { state, version: state.version };
      if (await this.coverDistributionSample(state, measure)) this.rebuildDistributions(state);
    }
    // Rebuilt once 5% of the remembered values have changed since the last build.
    if (!this.distributions || this.computedSinceBuild > 0.05 * Math.max(this.rawsAtBuild, 1))
      this.rebuildDistributions(state);
    // The bars' calibration follows the distributions' rebuilds, but its samples are drawn from the catalog by hash,
    // not from the distributions: redrawn only when the catalog itself changed since (a full recompute redrew it with
    // every distribution rebuild, from the same catalog: the same calibration, 20 of 80 s at 100,000 fields).
    if (this.fitFor !== this.distributions) {
      this.fitFor = this.distributions;
      if (this.fit !== null && this.fitOf?.state === state && this.fitOf.version === state.version) return;
      this.fitOf = { state, version: state.version };
      this.fit = await buildFitCalibration(
        fitSource(state, anchorOf),
        () => new Promise((resolve) => setImmediate(resolve)),
      );
    }
  }

  /**
   * A confirmed field's basis: when it was reviewed, its classification and what the field itself is (names, type,
   * comment, value formats). While it holds the reviewer's decision stands and the field stays off the top of the
   * queue, whatever its neighbours do (a rescan, a re-evaluation, new look-alikes elsewhere); the field changing
   * itself, or another classification, reopens it. Reads the stored bases and the review bases of the confirmed fields.
   */
  private async confirmedBases(pre: readonly Measured[]): Promise<ConfirmedBases> {
    const confirmedIds = pre.filter((m) => m.confirmed).map((m) => m.id);
    const [previous, review] =
      confirmedIds.length > 0
        ? await Promise.all([
            repo.findConfirmedBasis(this.deps.database.db, confirmedIds),
            this.deps.fields.reviewBases(confirmedIds),
          ])
        : [new Map<string, string | null>(), new Map<string, { reviewedAt: string | null; self: string }>()];
    return { previous, review };
  }

  /** One field's scores, outlier score, suggestion and risk: its row but the reason, and what the reason needs. */
  private scoreField(
    state: CatalogState,
    tags: TagContext,
    measured: Measured,
    batch: { names: FieldNames; bases: ConfirmedBases; computedAt: string },
  ): Scored {
    const { basis, confirmedUnchanged } = confirmedBasis(measured, batch.bases);
    // A reviewer overrode the classifier's view when deciding: while the field is unchanged since, that view is no
    // evidence against the decision (it is still the classifier's view of the field, kept as its prediction).
    const m: Measured =
      confirmedUnchanged && measured.reviewerEvidence
        ? { ...measured, evidence: measured.reviewerEvidence(), predicted: null }
        : measured;
    const { id, tagId, level, axes, neighbours, margins, disagreement, nearestRatio, evidence, reviewed } = m;
    // The outlier model weighs the catalog percentiles (its weights were fitted on them); the stored bars are the
    // calibrated fit scores a reviewer reads.
    const percentiles = normalizeAxes(axes.raw, this.distributions as AxisDistributions);
    const tagLevels = state.tagLevels(tagId);
    // The other fields with the field's tag (the reason counts them too).
    const peers = tagLevels.reduce((sum, l) => sum + l.count, 0) - 1;
    const usual = levelFit(tagLevels, level, m.confirmed, tags.rank);
    const { scores } = fitScores(axes.raw, { tagId, level }, neighbours, peers, this.fit, tags.rank, usual.fit);
    const input: OutlierInput = {
      scores: percentiles,
      neighbourDisagreement: disagreement,
      anchorMargin: margins.anchorMargin,
      peerMargin: margins.peerMargin,
      nearestRatio,
      evidence,
      confirmedUnchanged,
      reviewed,
      ...(this.scales ? { scales: this.scales } : {}),
    };
    this.featureLog?.set(id, input);
    const score = outlierScore(input);
    const severity = severityOf(score, this.deps.severity);
    // A decision sticks (CONTRACT §11): a confirmed field that has not changed since is offered nothing else.
    const suggestion = confirmedUnchanged ? null : this.suggestionFor(state, tags, m, score);
    const risk = riskOf(score, severity, level, suggestion, tags.rank);
    // A nearest field deleted since the search has no name (and its deletion makes this field stale again).
    const nearestName = m.nearest ? batch.names.get(m.nearest.id) : undefined;
    const judged: Judged = {
      scores,
      input,
      score,
      severity,
      suggestion,
      risk,
      peers,
      tagLevels,
      levelFit: usual,
      nearestName,
      basis,
      confirmedUnchanged,
    };
    // The nearest fields a suspicious field's reason counts.
    const counted = severity === 'low' ? [] : neighbours.slice(0, REASON_NEIGHBOURS);
    return {
      row: metricsRow(m, judged, batch.computedAt),
      reasonInput: reasonInputOf(m, judged, tags),
      counted,
      reasonNeighbours: (found) =>
        reasonNeighboursOf(counted, m, suggestion, tags, (nid) => found.get(nid) ?? batch.names.get(nid)),
    };
  }

  /** Another classification for a field, if the evidence offers one (the runner-up, reviewers' corrections, a twin). */
  private suggestionFor(state: CatalogState, tags: TagContext, m: Measured, score: number): Judged['suggestion'] {
    const { id, tagId, level, neighbours, predicted, margins, evidence, reviewed } = m;
    const slot = state.slot(id);
    const runnersUp = (slot === undefined ? [] : state.runnersUp(slot)).flatMap((r) => {
      const runnerId = tags.tagIdOf(r.path);
      return runnerId === undefined ? [] : [{ tagId: runnerId, ratio: r.ratio }];
    });
    const reviews = predicted && evidence.selfClassified ? state.answerReviews(predicted.tagId) : null;
    const input: SuggestionInput = {
      tagId,
      level,
      neighbours,
      predicted,
      margins,
      evidence,
      outlierScore: score,
      threshold: Math.min(SUGGEST_FROM, this.deps.severity.medium),
      usualLevel: tags.usualLevel,
      rank: tags.rank,
      twin: reviewed.twin,
      pattern: reviewed.pattern ?? null,
      runnerUpTagId: runnersUp[0]?.tagId ?? null,
      runnersUp,
      groupOf: tags.groupOf,
      tagShare: (other) => (state.tags.get(other)?.count ?? 0) / Math.max(1, state.size),
      corrections: reviews?.top
        ? {
            tagId: reviews.top.tagId,
            level: reviews.top.level,
            share: reviews.top.count / (reviews.kept + reviews.corrected),
          }
        : null,
    };
    this.suggestionInputLog?.set(id, input);
    const suggestion = suggestClassification(input);
    if (suggestion) this.suggestionLog?.set(id, { by: suggestion.by, score, share: suggestion.share });
    return suggestion;
  }

  /**
   * The reasons, once the data sources of the nearest fields a suspicious field's reason counts are known: one query
   * for the batch, for the few fields the queue puts first (a field that fits names only its nearest field, read before).
   */
  private async withReasons(scored: readonly Scored[], names: FieldNames): Promise<ComputedRow[]> {
    const more = scored.flatMap((c) => c.counted.map((m) => m.id)).filter((nid) => !names.has(nid));
    const found =
      more.length > 0
        ? await this.deps.fields.fieldNames([...new Set(more)])
        : new Map<string, { name: string; datasource: string }>();
    return scored.map(({ row, reasonInput, reasonNeighbours }) => ({
      ...row,
      reason: reasonFor({ ...reasonInput, neighbours: reasonNeighbours(found) }),
    }));
  }
}

type ComputedRow = repo.FieldMetricsRow & { risk: number };
type FieldNames = Map<string, { name: string; datasource: string }>;

/** What computing a batch knows of the taxonomy: the tags' anchors and stats, their names, the levels' order. */
interface TagContext {
  stats: TagStats[];
  anchorOf: Map<number, Float32Array>;
  label: (tagId: number, level: string | null) => string;
  defaultLevel: (tagId: number) => string | null;
  groupOf: (tagId: number) => string;
  tagIdOf: (chainPath: string) => number | undefined;
  rank: (level: string) => number;
  usualLevel: (tagId: number) => string | null;
}

/** The confirmed fields' stored bases, and when each was reviewed with a digest of the field itself. */
interface ConfirmedBases {
  previous: Map<string, string | null>;
  review: Map<string, { reviewedAt: string | null; self: string }>;
}

/** What the outlier model and the suggestion made of a measured field. */
interface Judged {
  scores: ReturnType<typeof fitScores>['scores'];
  input: OutlierInput;
  score: number;
  severity: ReturnType<typeof severityOf>;
  suggestion: ReturnType<typeof suggestClassification>;
  risk: number;
  /** The other fields with the field's tag, and its tag's fields by level. */
  peers: number;
  tagLevels: ReturnType<CatalogState['tagLevels']>;
  /** How usual its level is for its tag (it scales the four tag bars). */
  levelFit: TagLevelFit;
  nearestName: { name: string; datasource: string } | undefined;
  basis: string | null;
  confirmedUnchanged: boolean;
}

/** A field scored: its row but the reason, and what the reason needs once the counted neighbours are named. */
interface Scored {
  row: ComputedRow;
  reasonInput: ReasonInput;
  counted: Array<Neighbour & { id: string }>;
  reasonNeighbours: (found: FieldNames) => ReasonNeighbour[];
}

/** Everything of a field's metrics that does not depend on the catalog distributions; remembers its raw values. */
function measureSlot(state: CatalogState, tags: TagContext, slot: number, found: Neighbours): Measured {
  const id = state.idOf(slot) as string;
  const tagId = state.tagOf[slot] as number;
  const level = state.level(slot);
  const tag = state.tags.get(tagId);
  const group = state.levelGroupOf(slot);
  const neighbours: Array<Neighbour & { id: string }> = [];
  found.keys.forEach((key, i) => {
    // The id is built (from its bytes) only for a neighbour that is kept.
    const nid = key !== slot && neighbours.length < NEIGHBOURS_K ? state.idOf(key) : undefined;
    if (nid !== undefined) {
      neighbours.push({
        id: nid,
        tag_id: state.tagOf[key] as number,
        level: state.level(key),
        similarity: found.similarities[i] ?? 0,
        confirmed: state.isConfirmed(key),
      });
    }
  });
  const predicted = state.predicted(slot);
  const evidenceInput = {
    tagId,
    level,
    neighbours,
    predicted,
    tagLevels: state.tagLevels(tagId),
    defaultLevel: tags.defaultLevel(tagId),
    rank: tags.rank,
    groupOf: tags.groupOf,
    selfClassified: state.isSelfClassified(slot),
    tagCohesion: groupCohesion(tag?.sum, tag?.count ?? 0),
  };
  const evidence = classificationEvidence(evidenceInput);
  const confirmed = state.isConfirmed(slot);
  const twins = state.confirmedTwins(slot).map((t) => ({ tag_id: state.tagOf[t] as number, level: state.level(t) }));
  // The naming pattern speaks only to a field that carries the classifier's answer (its reviews are of that answer).
  const patternReviews =
    predicted && evidence.selfClassified && predicted.tagId === tagId ? state.patternReviews(slot, tagId) : null;
  const reviewed = reviewedEvidence(neighbours, { tag_id: tagId, level }, twins, tags.rank, patternReviews);
  const measured = measureField({
    embedding: state.embedding(slot),
    tagId,
    level,
    anchor: tags.anchorOf.get(tagId) ?? null,
    levelSum: group?.sum ?? null,
    levelCount: group?.count ?? 0,
    tagCount: tag?.count ?? 0,
    peerSample: state.peersOf(slot),
    neighbours,
    tagStats: tags.stats,
  });
  state.remember(slot, {
    raw: measured.axes.raw,
    peer: measured.margins.peerMargin,
    anchor: measured.margins.anchorMargin,
  });
  return {
    ...measured,
    id,
    tagId,
    level,
    nearest: neighbours[0],
    neighbours,
    evidence,
    predicted,
    confirmed,
    reviewed,
    ...(confirmed ? { reviewerEvidence: () => classificationEvidence({ ...evidenceInput, predicted: null }) } : {}),
  };
}

/** A confirmed field's basis now (see MetricsWorker.confirmedBases), and whether it is the one stored. */
function confirmedBasis(m: Measured, bases: ConfirmedBases): { basis: string | null; confirmedUnchanged: boolean } {
  if (!m.confirmed) return { basis: null, confirmedUnchanged: false };
  const review = bases.review.get(m.id);
  const now = `${review?.reviewedAt ?? ''}|${m.tagId}:${m.level}|field:${review?.self ?? ''}`;
  const before = bases.previous.get(m.id) ?? null;
  // A new confirmation (another reviewed_at) starts a new basis, as does one stored in the earlier form (the
  // classifications of the nearest fields); otherwise the first one is kept.
  const basis =
    before !== null && before.split('|')[0] === now.split('|')[0] && before.includes('|field:') ? before : now;
  return { basis, confirmedUnchanged: basis === now };
}

/** What the reason of a field says, but its counted neighbours (named later, for the batch at once). */
function reasonInputOf(m: Measured, j: Judged, tags: TagContext): ReasonInput {
  const { tagId, level, nearest, margins, evidence, predicted, reviewed } = m;
  const { label, rank, defaultLevel } = tags;
  const { suggestion, nearestName } = j;
  const betterTag =
    margins.anchorMargin !== null && margins.anchorMargin < 0 && margins.bestOtherAnchorTagId !== null
      ? { classification: label(margins.bestOtherAnchorTagId, null), by: 'anchor' as const }
      : null;
  return {
    classification: label(tagId, level),
    tag: label(tagId, null),
    level,
    scores: j.scores,
    nearest:
      nearest && nearestName !== undefined
        ? {
            name: nearestName.name,
            datasource: nearestName.datasource,
            similarity: nearest.similarity,
            classification: label(nearest.tag_id, nearest.level),
            sameClassification: nearest.tag_id === tagId && nearest.level === level,
            sameTagAsSuggestion: suggestion !== null && suggestion.tagId === nearest.tag_id,
          }
        : null,
    betterTag,
    suggestion: suggestion
      ? {
          classification: label(suggestion.tagId, suggestion.level),
          sameTag: suggestion.tagId === tagId,
          by: suggestion.by,
        }
      : null,
    classifier:
      predicted && predicted.tagId !== tagId
        ? {
            classification: label(predicted.tagId, predicted.level),
            confidence: predicted.confidence,
            labelGap: predicted.labelGap,
          }
        : null,
    expectedLevel:
      evidence.expectedLevel !== null && evidence.expectedLevel !== level
        ? {
            level: evidence.expectedLevel,
            under: rank(evidence.expectedLevel) > rank(level),
            peers: j.peers,
            peersAtLevel: j.tagLevels.find((l) => l.level === evidence.expectedLevel)?.count ?? 0,
            isDefault: defaultLevel(tagId) === evidence.expectedLevel,
          }
        : null,
    unusualLevel:
      j.levelFit.fit < 1 ? { atLevel: j.levelFit.atLevel, of: j.levelFit.of, usual: j.levelFit.usual } : null,
    terms: outlierTerms(j.input),
    severity: j.severity,
    confirmedUnchanged: j.confirmedUnchanged,
    selfConfidence: evidence.selfClassified && predicted ? predicted.confidence : null,
    twin: reviewed.twin ? { classification: label(reviewed.twin.tagId, reviewed.twin.level) } : null,
    pattern: reviewed.pattern
      ? { classification: label(reviewed.pattern.tagId, reviewed.pattern.level), count: reviewed.pattern.count }
      : null,
  };
}

/** The counted neighbours as the reason names them; a deleted one (no name) is left out, as for the nearest. */
function reasonNeighboursOf(
  counted: ReadonlyArray<Neighbour & { id: string }>,
  m: Measured,
  suggestion: Judged['suggestion'],
  tags: TagContext,
  nameOf: (id: string) => { name: string; datasource: string } | undefined,
): ReasonNeighbour[] {
  return counted.flatMap((n) => {
    const named = nameOf(n.id);
    return named === undefined
      ? []
      : [
          {
            classification: tags.label(n.tag_id, n.level),
            sameClassification: n.tag_id === m.tagId && n.level === m.level,
            sameTagAsSuggestion: suggestion !== null && suggestion.tagId === n.tag_id,
            datasource: named.datasource,
          },
        ];
  });
}

/** The stored metrics row of a field, its reason still empty. */
function metricsRow(m: Measured, j: Judged, computedAt: string): ComputedRow {
  const { id, axes, nearest, margins, disagreement } = m;
  const { scores, suggestion, nearestName } = j;
  const raw = perAxis((k) => axes.raw[k]);
  return {
    field_id: id,
    ...(Object.fromEntries(Object.entries(raw).map(([k, v]) => [`raw_${k}`, v])) as Pick<
      repo.FieldMetricsRow,
      `raw_${keyof typeof raw}`
    >),
    ...(Object.fromEntries(Object.entries(scores).map(([k, v]) => [`score_${k}`, v])) as Pick<
      repo.FieldMetricsRow,
      `score_${keyof typeof scores}`
    >),
    category_similarity: axes.category_similarity,
    centroid_similarity: axes.centroid_similarity,
    neighbour_disagreement: disagreement,
    peer_margin: margins.peerMargin,
    anchor_margin: margins.anchorMargin,
    outlier_score: j.score,
    severity: j.severity,
    // Both or neither.
    nearest_field_id: nearest && nearestName !== undefined ? nearest.id : null,
    nearest_field_name: nearestName?.name ?? null,
    nearest_similarity: nearest?.similarity ?? null,
    reason: '',
    computed_at: computedAt,
    suggested_tag_id: suggestion?.tagId ?? null,
    suggested_level: suggestion?.level ?? null,
    suggested_confidence: suggestion?.confidence ?? null,
    confirmed_basis: j.basis,
    risk: j.risk,
  };
}

/** Hash-sampled fields of the whole catalog that the bars' calibration draws its non-members from. */
const FIT_POOL = 4096;

/** What the bars' calibration measures, read from the replica: per tag its sampled members and other fields, per level the same. */
function fitSource(state: CatalogState, anchorOf: ReadonlyMap<number, Float32Array>): FitSource {
  const pool = state.hashSample(FIT_POOL);
  // Each tag (level) takes its non-members from another place in the pool, so the pooled sample is not 64 fields.
  const othersOf = (offset: number, keep: (slot: number) => boolean): number[] => {
    const out: number[] = [];
    for (let i = 0; i < pool.length && out.length < FIT_SAMPLE; i++) {
      const slot = pool[(offset + i) % pool.length] as number;
      if (keep(slot)) out.push(slot);
    }
    return out;
  };
  const tags: Array<FitSource['tags'][number]> = [];
  let n = 0;
  for (const [tagId, tag] of state.tags) {
    if (tag.count === 0) continue;
    const sample = state.tagSample(tagId, FIT_SAMPLE);
    tags.push({
      tagId,
      anchor: anchorOf.get(tagId) ?? null,
      members: sample.slots,
      peersOf: (slot) => state.peersOf(slot),
      peers: sample.embeddings,
      others: othersOf(n++ * FIT_SAMPLE, (slot) => state.tagOf[slot] !== tagId),
    });
  }
  const levels = state.levelGroups().map(({ level, group }, i) => {
    const members = othersOf(0, (slot) => state.level(slot) === level);
    // A rare level has few fields in the pool: its own members fill up the sample.
    for (let j = 0; j < group.members.size && members.length < FIT_SAMPLE; j++)
      if (!members.includes(group.members.at(j))) members.push(group.members.at(j));
    return {
      level,
      sum: group.sum,
      count: group.count,
      members,
      others: othersOf(i * FIT_SAMPLE, (slot) => state.level(slot) !== level),
    };
  });
  return { embedding: (slot) => state.embedding(slot), tags, levels };
}
