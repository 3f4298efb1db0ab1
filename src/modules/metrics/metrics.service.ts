/**
 * Per-field metrics (embedding-minibars): stored in `field_metrics`, recomputed by a background worker from
 * an in-memory picture of the catalog (embeddings, per-tag and per-level running sums, a nearest-neighbour
 * index, per-axis distributions) that every instance keeps in step with the database.
 *
 * Staleness model (docs/metrics.md, "Staying fresh"): a change enqueues the changed fields, their nearest
 * neighbours and a bounded rotating sample of same-tag and same-level peers in the same transaction; any
 * instance's worker claims and recomputes them. `pending` counts the queue.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { decodeVector, type Database, type Queryable, type Tx } from '../../db/database.js';
import type { LicenseGate } from '../license/license.gate.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import type { Neighbours } from './ann-threads.js';
import { CatalogState, hashSampleLimit, type GroupState, type RememberedRaw } from './catalog-state.js';
import {
  AXIS_KEYS,
  addInto,
  buildAxisDistributions,
  computeAxes,
  computeTagMargins,
  dot,
  marginScale,
  nearestTagEvidence,
  neighbourDisagreement,
  normalize,
  normalizeAxes,
  outlierScore,
  outlierTerms,
  reasonFor,
  severityOf,
  type AxisDistributions,
  type AxisKey,
  type SeverityThresholds,
  type TagStats,
} from './metrics.math.js';
import * as repo from './metrics.repository.js';
import type { MetricsStatusResponse, MinibarsBody, MinibarsResponse, FieldMetricItem } from './metrics.schemas.js';

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
/** Neighbours weighed for neighbour disagreement. */
export const NEIGHBOURS_K = 10;
/** A tag's anchor learns from its confirmed fields once it has this many. */
export const CONFIRMED_FOR_ANCHOR = 3;
/** Peers re-enqueued per affected tag or level on a change (rotating, so repeated changes reach different peers). */
export const PEERS_PER_CHANGE = 32;
const BATCH = 1000;
/** Fields computed between two turns of the event loop (~10–20 ms of work), so requests are not held up. */
const YIELD_EVERY = 50;
/** Fields per search request to the index threads (a batch's requests are all sent at once; the threads work ahead). */
const SEARCH_CHUNK = 50;
/** From this many fields the index is split over `indexThreads` threads (below it one thread is plenty). */
const SHARD_FROM = 50_000;
/** Fields read into the catalog before the loader waits for the index threads to catch up (bounds their backlog). */
const LOAD_WINDOW = 50_000;
/** A claim older than this is treated as abandoned (crashed instance) and claimed again. */
const ABANDONED_MS = 60_000;
/** A sequence number missing from the change log is re-checked for this long (a transaction still open), then given up (rolled back). */
const GAP_TTL_MS = 30_000;
const MAX_GAPS = 50_000;
/** Change-log rows kept; an instance further behind reloads everything. */
const KEEP_CHANGES = 2_000_000;

export interface MetricsServiceDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  taxonomy: Pick<TaxonomyService, 'tagAnchors' | 'tagIndex'>;
  license: Pick<LicenseGate, 'assertFeature'>;
  dimensions: number;
  severity: SeverityThresholds;
  /** Threads (index shards) for the nearest-neighbour index of a catalog of SHARD_FROM fields or more. */
  indexThreads: number;
}

/** A claimed batch whose neighbour searches have been sent to the index threads. */
interface Prepared {
  state: CatalogState;
  /** The batch's fields in measuring order (same tag together), each with its search, SEARCH_CHUNK per request. */
  ids: string[];
  searches: Array<Promise<Neighbours[]>>;
}

type Claim = { field_id: string; token: string };

interface Scales {
  peer: number;
  anchor: number;
}

export class MetricsService {
  private state: CatalogState | null = null;
  private loading: Promise<CatalogState> | null = null;
  /** Highest change-log sequence applied, and earlier ones not yet seen (maybe still uncommitted). */
  private maxSeen = 0;
  private gaps = new Map<number, number>();
  private lastBoundsCheck = 0;
  /** Cumulative wall time of the worker's phases and fields computed, since start (logged; printed by bench/metrics). */
  readonly workTimes = { loadMs: 0, claimMs: 0, computeMs: 0, saveMs: 0, fields: 0 };
  private distributions: AxisDistributions | null = null;
  private scales: Scales | undefined;
  private rawsAtBuild = 0;
  private computedSinceBuild = 0;
  /** The catalog and its version when the distribution sample was last completed. */
  private covered: { state: CatalogState; version: number } | null = null;
  private readonly worker = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private syncing: Promise<void> | null = null;

  constructor(private readonly deps: MetricsServiceDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  /** Whether this instance has its in-memory catalog (loaded by the worker's first round, or on demand). */
  get catalogLoaded(): boolean {
    return this.state !== null;
  }

  /** Starts the background worker (every second: follow the change log, recompute stale fields). */
  start(intervalMs = 1000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      this.running = this.work()
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'metrics worker round failed'))
        .finally(() => {
          this.running = null;
        });
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the worker and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // A drain's failure is its caller's to report; stopping only waits for the round to end.
    await this.running?.catch(() => undefined);
    await this.syncing?.catch(() => undefined);
    await this.loading?.catch(() => undefined);
    await this.state?.close();
  }

  /** Recomputes until no field is pending (waits for entries other instances hold); for tests and benchmarks. */
  async drain(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Loading the catalog also queues fields nobody queued (bulk loads, upgrades).
    await this.ensureState();
    for (;;) {
      // One round at a time: the timer's rounds skip while this one runs (two interleaved rounds would only
      // compete for the same thread and evict each other's peer samples from the CPU cache).
      while (this.running) await this.running;
      this.running = this.processQueue(true).finally(() => {
        this.running = null;
      });
      await this.running;
      if ((await repo.countPending(this.db)) === 0) return;
      if (Date.now() > deadline) throw new Error('metrics drain timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  // ------------------------------------------------------------ staleness hooks (inside the writer's transaction)

  /** Marks fields and the fields whose metrics they affect stale, inside the caller's transaction. */
  async markStale(trx: Tx, fieldIds: readonly string[]): Promise<void> {
    if (fieldIds.length === 0) return;
    const affected = new Set(fieldIds);
    const state = this.state;
    if (state) {
      const now = await repo.findClassifications(trx, fieldIds);
      const tags = new Set<number>();
      const levels = new Set<string>();
      for (const r of now) {
        tags.add(r.tag_id);
        levels.add(r.level);
      }
      const queries: Float32Array[] = [];
      const unseen: string[] = [];
      for (const id of fieldIds) {
        const slot = state.slot(id);
        if (slot === undefined) {
          unseen.push(id);
          continue;
        }
        tags.add(state.tagOf[slot] as number);
        levels.add(state.level(slot));
        if (fieldIds.length <= BATCH) queries.push(state.embedding(slot));
      }
      // New fields (not in the catalog until it syncs): the fields they become the nearest neighbour of, too.
      if (fieldIds.length <= BATCH && unseen.length > 0) queries.push(...(await this.storedUnitEmbeddings(trx, unseen)).values());
      // Fields that have a changed one among their neighbours most likely are among its own neighbours. Urgent: the
      // caller holds its transaction open meanwhile, so this goes ahead of the worker's queued searches.
      for (const found of await this.neighboursForMarking(state, queries)) {
        for (const key of found.keys) {
          const id = state.ids[key];
          if (id !== undefined) affected.add(id);
        }
      }
      const pick = (group: GroupState | undefined): void => {
        const n = group?.members.size ?? 0;
        if (!group || n === 0) return;
        // Rotating start so repeated changes refresh different peers.
        const start = Math.floor(Math.random() * n);
        for (let j = 0; j < Math.min(n, PEERS_PER_CHANGE); j++) {
          const id = state.ids[group.members.at((start + j) % n)];
          if (id !== undefined) affected.add(id);
        }
      };
      for (const t of tags) pick(state.tags.get(t));
      for (const l of levels) pick(state.levelGroup(l));
    }
    const live = await repo.existingFieldIds(trx, [...affected]);
    await repo.enqueue(trx, [...live], this.deps.clock.now().toISOString(), randomUUID());
  }

  /** The neighbours markStale re-queues; none when the index failed or closed (the writer's change must not fail). */
  private async neighboursForMarking(state: CatalogState, queries: readonly Float32Array[]): Promise<Neighbours[]> {
    try {
      return await state.search(queries, NEIGHBOURS_K + 1, { urgent: true });
    } catch (error) {
      this.deps.log.warn({ err: error }, 'metrics: neighbours of changed fields not re-queued (nearest-neighbour index unavailable)');
      return [];
    }
  }

  // ------------------------------------------------------------ reading

  /** Embedding-minibars for 1–500 fields: stored metrics plus the list-dependent mean similarity and baseline. */
  async minibars(body: MinibarsBody): Promise<MinibarsResponse> {
    await this.deps.license.assertFeature('embedding_metrics');
    const ids = [...new Set(body.field_ids)];
    let stored = await repo.findStoredMetrics(this.deps.database, ids);
    const have = new Set(stored.map((r) => r.field_id));
    const uncomputed = ids.filter((id) => !have.has(id));
    if (uncomputed.length > 0) {
      const existing = await repo.existingFieldIds(this.db, uncomputed);
      if (existing.size > 0) {
        // Not computed yet (just imported): compute on the spot rather than answer without metrics.
        await this.computeAndSave([...existing], []);
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

    // mean cos to the other listed fields = e · (S − e) / (n − 1), with S the sum of the list's unit embeddings.
    const sum = new Float32Array(this.deps.dimensions);
    for (const e of unit.values()) addInto(sum, e, 1);
    const inList = unit.size;
    const items: FieldMetricItem[] = present.map((id) => {
      const r = byId.get(id) as repo.StoredMetricsRow;
      const e = unit.get(id);
      const mean = e && inList > 1 ? clampNum((dot(e, sum) - dot(e, e)) / (inList - 1), -1, 1) : 1;
      return toItem(r, mean, r.nearest_field_id !== null && nearestAlive.has(r.nearest_field_id));
    });
    const baseline = Object.fromEntries(
      AXIS_KEYS.map((k) => [k, items.length === 0 ? 0 : items.reduce((s, it) => s + it.scores[k], 0) / items.length]),
    ) as Record<AxisKey, number>;
    return { items, baseline_scores: baseline, field_count: items.length, missing_field_ids: missing };
  }

  /**
   * Unit embeddings of the given fields: from the in-memory catalog once it is loaded; while the instance is still
   * loading it (minutes at a million fields), from the database, so that requests are not held up meanwhile.
   */
  private async unitEmbeddings(ids: readonly string[]): Promise<Map<string, Float32Array>> {
    if (!this.state) return this.storedUnitEmbeddings(this.db, ids);
    const out = new Map<string, Float32Array>();
    const state = await this.ensureState();
    for (const id of ids) {
      const slot = state.slot(id);
      if (slot !== undefined) out.set(id, state.embedding(slot));
    }
    return out;
  }

  /** Unit embeddings of the given fields as `db` (a transaction, maybe) sees them; fields without one are left out. */
  private async storedUnitEmbeddings(db: Queryable, ids: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const row of await repo.findCatalogFields(db, ids)) {
      const e = row.embedding ? decodeVector(row.embedding) : null;
      if (e && e.length === this.deps.dimensions) out.set(row.id, normalize(e));
    }
    return out;
  }

  /**
   * Which of the given fields still exist (a field named as nearest may have been deleted since; its deletion
   * re-queued the fields that named it). From the in-memory catalog once it is loaded — unitEmbeddings has just
   * brought it up to date — else from the database.
   */
  private async existingFields(ids: readonly string[]): Promise<ReadonlySet<string>> {
    const state = this.state;
    if (!state) return repo.existingFieldIds(this.db, ids);
    return new Set(ids.filter((id) => state.slot(id) !== undefined));
  }

  /** How many fields are pending recomputation, how many exist, and when metrics were last written. */
  async status(): Promise<MetricsStatusResponse> {
    return repo.metricsStatus(this.db);
  }

  // ------------------------------------------------------------ in-memory state

  private async ensureState(): Promise<CatalogState> {
    if (this.state?.index.failure) {
      // An index thread died (out of memory, say): the index is incomplete. Build everything again.
      this.deps.log.error({ err: this.state.index.failure }, 'metrics nearest-neighbour index failed; reloading the catalog');
      await this.discardState();
    }
    if (this.state) {
      await this.sync();
      return this.state;
    }
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Builds the in-memory catalog from the database; picks up fields nobody queued (upgrade, bulk loads). */
  private async load(): Promise<CatalogState> {
    const started = performance.now();
    const bounds = await repo.changeBounds(this.db);
    // Sequence numbers just below the current maximum that are not visible yet may belong to open transactions.
    const seen = await repo.existingSeqs(this.db, Math.max(0, bounds.max - 1000), bounds.max);
    const now = Date.now();
    this.gaps = new Map();
    for (let s = Math.max(1, bounds.max - 999); s <= bounds.max; s++) if (!seen.has(s)) this.gaps.set(s, now);
    this.maxSeen = bounds.max;
    // Sized for the catalog up front: growing the nearest-neighbour index later copies it.
    const count = await repo.countFields(this.db);
    const state = new CatalogState(this.deps.dimensions, Math.ceil(count * 1.05) + 1024, count >= SHARD_FROM ? this.deps.indexThreads : 1);
    try {
      await this.fill(state);
      // The index builds in its threads while the catalog is read; computing needs it complete.
      await state.index.applied();
    } catch (error) {
      await state.close();
      throw error;
    }
    this.state = state;
    await this.sync();
    const ms = performance.now() - started;
    this.workTimes.loadMs += ms;
    this.deps.log.info({ fields: state.size, indexThreads: state.index.shardCount, ms: Math.round(ms) }, 'metrics catalog loaded');
    return state;
  }

  private async discardState(): Promise<void> {
    const old = this.state;
    this.state = null;
    this.covered = null;
    await old?.close();
  }

  /** Reads the catalog and the remembered raw values into a new state (the index builds in its threads meanwhile). */
  private async fill(state: CatalogState): Promise<void> {
    let after: string | null = null;
    // Reading is ~10× faster than building: without a bound, the vectors waiting for the index threads would pile
    // up in their message queues (~0.4 GB at a million 100-d fields). At most two windows are in flight.
    let window: Promise<void> = Promise.resolve();
    let sent = 0;
    for (;;) {
      const page = await repo.listCatalogFields(this.db, after, 5000);
      for (const row of page) state.apply(row);
      sent += page.length;
      if (sent >= LOAD_WINDOW) {
        await window;
        window = state.index.applied();
        window.catch(() => undefined); // awaited at the next window, or by load()
        sent = 0;
      }
      if (page.length < 5000) break;
      after = (page[page.length - 1] as repo.CatalogFieldRow).id;
    }
    after = null;
    for (;;) {
      const page = await repo.listStoredRaw(this.db, after, 5000);
      for (const r of page) {
        const slot = state.slot(r.field_id);
        if (slot === undefined) continue;
        state.remember(slot, {
          raw: {
            category_anchor: r.raw_category_anchor,
            centroid: r.raw_centroid,
            peer_mean: r.raw_peer_mean,
            nearest: r.raw_nearest,
            lower_quartile: r.raw_lower_quartile,
            farthest: r.raw_farthest,
          },
          peer: r.peer_margin,
          anchor: r.anchor_margin,
        });
      }
      if (page.length < 5000) break;
      after = (page[page.length - 1] as { field_id: string }).field_id;
    }
    this.rebuildDistributions(state);
    await repo.enqueueUncomputed(this.db, this.deps.clock.now().toISOString(), randomUUID());
    if (this.deps.database.kind === 'postgres') await repo.analyzeQueue(this.db);
  }

  /** Applies every committed change to `fields` this instance has not seen yet (the change log). */
  async sync(): Promise<void> {
    if (!this.state) {
      await this.ensureState();
      return;
    }
    this.syncing ??= this.syncOnce().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const state = this.state as CatalogState;
    const now = Date.now();
    if (now - this.lastBoundsCheck > 60_000) {
      this.lastBoundsCheck = now;
      const bounds = await repo.changeBounds(this.db);
      if (bounds.min > this.maxSeen + 1 && bounds.max > this.maxSeen) {
        // Changes this instance never saw were pruned: start over.
        await this.discardState();
        await this.ensureState();
        return;
      }
      if (bounds.max - KEEP_CHANGES > 0) await repo.pruneChanges(this.db, bounds.max - KEEP_CHANGES);
    }
    for (const [seq, since] of this.gaps) if (now - since > GAP_TTL_MS) this.gaps.delete(seq);
    for (;;) {
      const rows = await repo.readChanges(this.db, this.maxSeen, [...this.gaps.keys()], 20_000);
      if (rows.length === 0) return;
      const ids = new Set<string>();
      let newest = this.maxSeen;
      const found = new Set<number>();
      for (const r of rows) {
        ids.add(r.field_id);
        found.add(r.seq);
        if (r.seq > newest) newest = r.seq;
      }
      for (const s of found) this.gaps.delete(s);
      for (let s = this.maxSeen + 1; s < newest && this.gaps.size < MAX_GAPS; s++) if (!found.has(s)) this.gaps.set(s, now);
      this.maxSeen = newest;
      const list = [...ids];
      const rowsNow = await repo.findCatalogFields(this.db, list);
      const alive = new Set(rowsNow.map((r) => r.id));
      for (const row of rowsNow) state.apply(row);
      for (const id of list) if (!alive.has(id)) state.remove(id);
      if (rows.length < 20_000) return;
    }
  }

  // ------------------------------------------------------------ the worker

  private async work(): Promise<void> {
    await this.ensureState();
    await this.processQueue(false);
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
    if (this.stopped && !untilEmpty) return null;
    const now = this.deps.clock.now();
    const nowIso = new Date(Math.max(now.getTime(), Date.now())).toISOString();
    const started = performance.now();
    const claims = await repo.claim(this.db, this.deps.database.kind, this.worker, nowIso, new Date(Date.parse(nowIso) - ABANDONED_MS).toISOString(), BATCH);
    this.workTimes.claimMs += performance.now() - started;
    if (claims.length === 0) return null;
    // Claimed after the change committed: syncing now sees it.
    const state = await this.ensureState();
    return { claims, prepared: this.prepare(state, claims.map((c) => c.field_id)) };
  }

  private async computeAndSave(ids: readonly string[], claims: readonly Claim[]): Promise<void> {
    const state = await this.ensureState();
    await this.store(await this.computeFields(this.prepare(state, ids)), claims);
  }

  private async store(rows: readonly repo.FieldMetricsRow[], claims: readonly Claim[]): Promise<void> {
    const started = performance.now();
    await this.db.transaction().execute(async (trx) => repo.saveMetrics(trx, this.deps.database.kind, rows, claims));
    this.workTimes.saveMs += performance.now() - started;
    this.workTimes.fields += rows.length;
  }

  /** Orders a batch for measuring (same tag together) and sends its neighbour searches to the index threads. */
  private prepare(state: CatalogState, ids: readonly string[]): Prepared {
    // Same-tag fields one after another: they share the peer sample, which then stays in the CPU cache (this
    // halved the time of the axes at 100k fields).
    const order = ids
      .flatMap((id) => {
        const slot = state.slot(id);
        return slot === undefined ? [] : [{ id, slot, tagId: state.tagOf[slot] as number }];
      })
      .sort((a, b) => a.tagId - b.tagId);
    return { state, ids: order.map((o) => o.id), searches: this.searchAhead(state, order.map((o) => o.slot)) };
  }

  /** Sends the slots' neighbour searches to the index threads, SEARCH_CHUNK per request, all at once. */
  private searchAhead(state: CatalogState, slots: readonly number[]): Array<Promise<Neighbours[]>> {
    const searches: Array<Promise<Neighbours[]>> = [];
    for (let i = 0; i < slots.length; i += SEARCH_CHUNK) {
      const search = state.search(slots.slice(i, i + SEARCH_CHUNK).map((slot) => state.embedding(slot)), NEIGHBOURS_K + 1);
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
  private async measureAll(state: CatalogState, ids: readonly string[], searches: ReadonlyArray<Promise<Neighbours[]>>, measure: (slot: number, found: Neighbours) => void): Promise<void> {
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
    this.scales = peer.length >= 20 && anchor.length >= 20 ? { peer: marginScale(peer), anchor: marginScale(anchor) } : undefined;
    this.rawsAtBuild = state.rawCount;
    this.computedSinceBuild = 0;
  }

  /**
   * Measures the fields of the distribution sample that have no remembered raw values; true when it measured any.
   * The sample is the whole catalog up to DISTRIBUTION_SAMPLE fields, else the fields whose id hash falls below
   * the matching share of the hash range (a deterministic, uniform sample that stays stable as the catalog grows).
   */
  private async coverDistributionSample(state: CatalogState, measure: (slot: number, found: Neighbours) => unknown): Promise<boolean> {
    const limit = hashSampleLimit(DISTRIBUTION_SAMPLE, state.size);
    const slots: number[] = [];
    for (let slot = 0; slot < state.slotCount; slot++) {
      if (state.ids[slot] !== undefined && (state.hashOf[slot] as number) < limit && !state.hasRemembered(slot)) slots.push(slot);
    }
    if (slots.length === 0) return false;
    await this.measureAll(state, slots.map((slot) => state.ids[slot] as string), this.searchAhead(state, slots), measure);
    return true;
  }

  /** Computes the metrics of the given fields from the in-memory catalog (fields it does not hold are skipped). */
  private async computeFields(prepared: Prepared): Promise<repo.FieldMetricsRow[]> {
    const { state } = prepared;
    const started = performance.now();
    const anchors = await this.deps.taxonomy.tagAnchors();
    const tagIndex = anchors.index;
    const label = (tagId: number, level: string | null): string => {
      const path = tagIndex.byId.get(tagId)?.chain_path ?? `tag ${tagId}`;
      return level === null ? path : `${path} (${level})`;
    };
    // Unit anchors: the text anchor, blended with the mean of the tag's confirmed fields once there are enough.
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
    const tagStats: TagStats[] = [];
    for (const [tagId, anchor] of anchorOf) {
      const t = state.tags.get(tagId);
      tagStats.push({ tagId, anchor, sum: t?.sum ?? null, count: t?.count ?? 0 });
    }

    /** A field's neighbour as it was when measured (the catalog may change while the batch yields). */
    type Neighbour = { id: string; tagId: number; level: string; similarity: number };
    type Measured = {
      id: string;
      tagId: number;
      level: string;
      axes: ReturnType<typeof computeAxes>;
      nearest: Neighbour | undefined;
      margins: ReturnType<typeof computeTagMargins>;
      disagreement: number;
      nearestRatio: number | null;
    };
    /** Everything of a field's metrics that does not depend on the catalog distributions; remembers its raw values. */
    const measure = (slot: number, found: Neighbours): Measured => {
      const id = state.ids[slot] as string;
      const tagId = state.tagOf[slot] as number;
      const level = state.level(slot);
      const tag = state.tags.get(tagId);
      const group = state.levelGroupOf(slot);
      const embedding = state.embedding(slot);
      const neighbours: Neighbour[] = [];
      found.keys.forEach((key, i) => {
        const nid = state.ids[key];
        if (nid !== undefined && key !== slot && neighbours.length < NEIGHBOURS_K) {
          neighbours.push({ id: nid, tagId: state.tagOf[key] as number, level: state.level(key), similarity: found.similarities[i] ?? 0 });
        }
      });
      const axes = computeAxes({
        embedding,
        anchor: anchorOf.get(tagId) ?? null,
        levelSum: group?.sum ?? null,
        levelCount: group?.count ?? 0,
        tagSum: tag?.sum ?? null,
        tagCount: tag?.count ?? 0,
        peerSample: state.peersOf(slot),
        nearest: neighbours[0] ? { similarity: neighbours[0].similarity } : null,
      });
      const margins = computeTagMargins(embedding, tagId, tagStats);
      const labelled = neighbours.map((n) => ({ similarity: n.similarity, tag_id: n.tagId, level: n.level }));
      const disagreement = neighbourDisagreement(labelled, { tag_id: tagId, level });
      const nearestRatio = nearestTagEvidence(labelled, { tag_id: tagId }, axes.nearest_peer_similarity).ratio;
      state.remember(slot, { raw: axes.raw, peer: margins.peerMargin, anchor: margins.anchorMargin });
      return { id, tagId, level, axes, nearest: neighbours[0], margins, disagreement, nearestRatio };
    };

    const pre: Measured[] = [];
    await this.measureAll(state, prepared.ids, prepared.searches, (slot, found) => {
      pre.push(measure(slot, found));
      this.computedSinceBuild++;
    });
    // Percentiles and margin scales must describe the whole catalog, not the part computed so far: otherwise the
    // first fields of a new catalog would be ranked against each other alone, and a field's stored scores would
    // depend on when it happened to be computed. So, before normalising, the raw values are completed over the
    // distribution sample (the whole catalog up to DISTRIBUTION_SAMPLE fields, beyond that the fields with the
    // smallest id hash); they are only measured, not stored (each is stored when its own turn comes).
    if (this.covered?.state !== state || this.covered.version !== state.version) {
      this.covered = { state, version: state.version };
      if (await this.coverDistributionSample(state, measure)) this.rebuildDistributions(state);
    }
    // Rebuilt once 5% of the remembered values have changed since the last build.
    if (!this.distributions || this.computedSinceBuild > 0.05 * Math.max(this.rawsAtBuild, 1)) {
      this.rebuildDistributions(state);
    }
    // Names are read for the reasons only (the catalog state keeps no names: ~60 bytes per field at 1M fields).
    const names = await repo.fieldNames(this.db, [...new Set(pre.flatMap((m) => (m.nearest ? [m.nearest.id] : [])))]);
    const distributions = this.distributions as AxisDistributions;
    const computedAt = this.deps.clock.now().toISOString();
    this.workTimes.computeMs += performance.now() - started;
    return pre.map(({ id, tagId, level, axes, nearest, margins, disagreement, nearestRatio }) => {
      const scores = normalizeAxes(axes.raw, distributions);
      const input = { scores, neighbourDisagreement: disagreement, anchorMargin: margins.anchorMargin, peerMargin: margins.peerMargin, nearestRatio, ...(this.scales ? { scales: this.scales } : {}) };
      const score = outlierScore(input);
      const severity = severityOf(score, this.deps.severity);
      const nearestName = nearest ? names.get(nearest.id) : undefined;
      const betterTag =
        margins.peerMargin !== null && margins.peerMargin < 0 && margins.bestOtherPeerTagId !== null
          ? { classification: label(margins.bestOtherPeerTagId, null), by: 'peers' as const }
          : margins.anchorMargin !== null && margins.anchorMargin < 0 && margins.bestOtherAnchorTagId !== null
            ? { classification: label(margins.bestOtherAnchorTagId, null), by: 'anchor' as const }
            : null;
      const reason = reasonFor({
        classification: label(tagId, level),
        scores,
        // A nearest field deleted meanwhile has no name: the deletion re-queued this field anyway.
        nearest:
          nearest && nearestName !== undefined
            ? {
                name: nearestName,
                similarity: nearest.similarity,
                classification: label(nearest.tagId, nearest.level),
                sameClassification: nearest.tagId === tagId && nearest.level === level,
              }
            : null,
        betterTag,
        terms: outlierTerms(input),
        severity,
      });
      return {
        field_id: id,
        raw_category_anchor: axes.raw.category_anchor,
        raw_centroid: axes.raw.centroid,
        raw_peer_mean: axes.raw.peer_mean,
        raw_nearest: axes.raw.nearest,
        raw_lower_quartile: axes.raw.lower_quartile,
        raw_farthest: axes.raw.farthest,
        score_category_anchor: scores.category_anchor,
        score_centroid: scores.centroid,
        score_peer_mean: scores.peer_mean,
        score_nearest: scores.nearest,
        score_lower_quartile: scores.lower_quartile,
        score_farthest: scores.farthest,
        category_similarity: axes.category_similarity,
        centroid_similarity: axes.centroid_similarity,
        neighbour_disagreement: disagreement,
        peer_margin: margins.peerMargin,
        anchor_margin: margins.anchorMargin,
        outlier_score: score,
        severity,
        // Both or neither: a nearest field deleted since the search has no name (and its deletion re-queued this one).
        nearest_field_id: nearest && nearestName !== undefined ? nearest.id : null,
        nearest_field_name: nearestName ?? null,
        nearest_similarity: nearest?.similarity ?? null,
        reason,
        computed_at: computedAt,
      };
    });
  }
}

function clampNum(x: number, lo: number, hi: number): number {
  if (!Number.isFinite(x)) return 0;
  return x < lo ? lo : x > hi ? hi : x;
}

function toItem(r: repo.StoredMetricsRow, meanSimilarity: number, nearestExists: boolean): FieldMetricItem {
  const f = (x: number): number => (Number.isFinite(x) ? x : 0);
  return {
    field_id: r.field_id,
    scores: {
      category_anchor: f(r.score_category_anchor),
      centroid: f(r.score_centroid),
      peer_mean: f(r.score_peer_mean),
      nearest: f(r.score_nearest),
      lower_quartile: f(r.score_lower_quartile),
      farthest: f(r.score_farthest),
    },
    raw_scores: {
      category_anchor: f(r.raw_category_anchor),
      centroid: f(r.raw_centroid),
      peer_mean: f(r.raw_peer_mean),
      nearest: f(r.raw_nearest),
      lower_quartile: f(r.raw_lower_quartile),
      farthest: f(r.raw_farthest),
    },
    category_similarity: f(r.category_similarity),
    centroid_similarity: f(r.centroid_similarity),
    mean_similarity: f(meanSimilarity),
    outlier_score: f(r.outlier_score),
    severity: r.severity,
    nearest_field_id: nearestExists ? r.nearest_field_id : null,
    nearest_field_name: nearestExists ? r.nearest_field_name : null,
    reason: r.reason,
  };
}
