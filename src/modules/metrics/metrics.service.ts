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
import { decodeVector, type Database, type Tx } from '../../db/database.js';
import type { LicenseGate } from '../license/license.gate.js';
import type { TaxonomyService } from '../taxonomy/taxonomy.service.js';
import { createNearestIndex, type NearestIndex } from './ann-index.js';
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
  type RawAxes,
  type SeverityThresholds,
  type TagStats,
} from './metrics.math.js';
import * as repo from './metrics.repository.js';
import type { MetricsStatusResponse, MinibarsBody, MinibarsResponse, FieldMetricItem } from './metrics.schemas.js';

/** Peer statistics use at most this many same-tag fields, chosen by a hash of the field id (deterministic). */
export const PEER_SAMPLE_SIZE = 256;
/**
 * Per-axis distributions and margin scales summarise at least this many fields (the whole catalog when smaller):
 * fields are measured for them before their own turn when needed. 5,000 values put a percentile within ±1%.
 */
export const DISTRIBUTION_SAMPLE = 5000;
/** Neighbours weighed for neighbour disagreement. */
export const NEIGHBOURS_K = 10;
/** A tag's anchor learns from its confirmed fields once it has this many. */
export const CONFIRMED_FOR_ANCHOR = 3;
/** Peers re-enqueued per affected tag or level on a change (rotating, so repeated changes reach different peers). */
export const PEERS_PER_CHANGE = 32;
const BATCH = 1000;
/** Fields computed between two turns of the event loop (~10–20 ms of work), so requests are not held up. */
const YIELD_EVERY = 50;
/** A claim older than this is treated as abandoned (crashed instance) and claimed again. */
const ABANDONED_MS = 60_000;
/** A sequence number missing from the change log is re-checked for this long (a transaction still open), then given up (rolled back). */
const GAP_TTL_MS = 30_000;
const MAX_GAPS = 50_000;
/** Change-log rows kept; an instance further behind reloads everything. */
const KEEP_CHANGES = 2_000_000;

interface FieldState {
  id: string;
  key: number;
  tagId: number;
  level: string;
  confirmed: boolean;
  name: string;
  embedding: Float32Array;
  hash: number;
}

interface GroupState {
  sum: Float32Array;
  count: number;
  members: Set<string>;
}

interface TagState extends GroupState {
  confirmedSum: Float32Array;
  confirmedCount: number;
  /** Cached peer sample; null when membership changed. */
  sample: PeerSample | null;
}

/**
 * A tag's peer sample: its members with the smallest id hash, PEER_SAMPLE_SIZE of them plus one spare, so that a
 * sampled field still gets PEER_SAMPLE_SIZE peers once itself is left out. Embedding lists are kept ready so the
 * per-field computation allocates nothing for the common case (a field outside the sample).
 */
interface PeerSample {
  /** The first PEER_SAMPLE_SIZE members' embeddings (all members when fewer). */
  embeddings: Float32Array[];
  /** The spare member, or null when the tag has no more members. */
  spare: FieldState | null;
  /** Ids of the members in `embeddings`. */
  ids: Set<string>;
  members: FieldState[];
}

/** FNV-1a of the id: a stable, well-spread order for peer samples. */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The catalog as one instance sees it; mutated only by apply()/remove(). */
class CatalogState {
  readonly fields = new Map<string, FieldState>();
  readonly byKey: Array<FieldState | undefined> = [];
  private readonly freeKeys: number[] = [];
  readonly tags = new Map<number, TagState>();
  readonly levels = new Map<string, GroupState>();
  index: NearestIndex;
  /** Bumped by every apply()/remove(): tells whether the catalog changed since a given moment. */
  version = 0;

  constructor(readonly dimensions: number, capacity: number) {
    this.index = createNearestIndex(dimensions, capacity);
  }

  apply(row: repo.CatalogFieldRow): void {
    if (!row.embedding) {
      this.remove(row.id);
      return;
    }
    const embedding = normalize(decodeVector(row.embedding));
    if (embedding.length !== this.dimensions) {
      this.remove(row.id);
      return;
    }
    const old = this.fields.get(row.id);
    if (old) this.detach(old);
    this.version++;
    const key = old?.key ?? this.freeKeys.pop() ?? this.byKey.length;
    const state: FieldState = {
      id: row.id,
      key,
      tagId: row.tag_id,
      level: row.level,
      confirmed: row.review_status === 'confirmed',
      name: `${row.table_name}.${row.field_name}`,
      embedding,
      hash: old?.hash ?? hashId(row.id),
    };
    this.fields.set(row.id, state);
    this.byKey[key] = state;
    this.attach(state);
    this.index.add(key, embedding);
  }

  remove(id: string): void {
    const old = this.fields.get(id);
    if (!old) return;
    this.detach(old);
    this.version++;
    this.fields.delete(id);
    this.byKey[old.key] = undefined;
    this.freeKeys.push(old.key);
    this.index.remove(old.key);
  }

  private attach(f: FieldState): void {
    const tag = this.tags.get(f.tagId) ?? this.newTag(f.tagId);
    addInto(tag.sum, f.embedding, 1);
    tag.count++;
    tag.members.add(f.id);
    tag.sample = null;
    if (f.confirmed) {
      addInto(tag.confirmedSum, f.embedding, 1);
      tag.confirmedCount++;
    }
    const level = this.levels.get(f.level) ?? this.newLevel(f.level);
    addInto(level.sum, f.embedding, 1);
    level.count++;
    level.members.add(f.id);
  }

  private detach(f: FieldState): void {
    const tag = this.tags.get(f.tagId);
    if (tag) {
      addInto(tag.sum, f.embedding, -1);
      tag.count--;
      tag.members.delete(f.id);
      tag.sample = null;
      if (f.confirmed) {
        addInto(tag.confirmedSum, f.embedding, -1);
        tag.confirmedCount--;
      }
      if (tag.count === 0) this.tags.delete(f.tagId);
    }
    const level = this.levels.get(f.level);
    if (level) {
      addInto(level.sum, f.embedding, -1);
      level.count--;
      level.members.delete(f.id);
      if (level.count === 0) this.levels.delete(f.level);
    }
  }

  private newTag(tagId: number): TagState {
    const t: TagState = { sum: new Float32Array(this.dimensions), count: 0, members: new Set(), confirmedSum: new Float32Array(this.dimensions), confirmedCount: 0, sample: null };
    this.tags.set(tagId, t);
    return t;
  }

  private newLevel(level: string): GroupState {
    const l: GroupState = { sum: new Float32Array(this.dimensions), count: 0, members: new Set() };
    this.levels.set(level, l);
    return l;
  }

  /** The tag's peer sample (see PeerSample), built once per membership change. */
  peerSample(tagId: number): PeerSample | null {
    const tag = this.tags.get(tagId);
    if (!tag) return null;
    if (tag.sample) return tag.sample;
    const all: FieldState[] = [];
    for (const id of tag.members) {
      const f = this.fields.get(id);
      if (f) all.push(f);
    }
    if (all.length > PEER_SAMPLE_SIZE + 1) {
      all.sort((a, b) => a.hash - b.hash);
      all.length = PEER_SAMPLE_SIZE + 1;
    }
    const members = all.slice(0, PEER_SAMPLE_SIZE);
    tag.sample = { members, embeddings: members.map((m) => m.embedding), spare: all[PEER_SAMPLE_SIZE] ?? null, ids: new Set(members.map((m) => m.id)) };
    return tag.sample;
  }

  /** The peers a field is compared with: its tag's sample without the field itself (≤ PEER_SAMPLE_SIZE). */
  peersOf(f: FieldState): readonly Float32Array[] {
    const sample = this.peerSample(f.tagId);
    if (!sample) return [];
    if (!sample.ids.has(f.id)) return sample.embeddings;
    const peers = sample.members.filter((m) => m.id !== f.id).map((m) => m.embedding);
    if (sample.spare) peers.push(sample.spare.embedding);
    return peers;
  }
}

export interface MetricsServiceDeps {
  database: Database;
  clock: Clock;
  log: FastifyBaseLogger;
  taxonomy: Pick<TaxonomyService, 'tagAnchors' | 'tagIndex'>;
  license: Pick<LicenseGate, 'assertFeature'>;
  dimensions: number;
  severity: SeverityThresholds;
}

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
  /** Raw axes and margins of the catalog, for the distributions and margin scales. */
  private readonly raws = new Map<string, { raw: RawAxes; peer: number | null; anchor: number | null }>();
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
    await this.running;
    await this.syncing;
  }

  /** Recomputes until no field is pending (waits for entries other instances hold); for tests and benchmarks. */
  async drain(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Loading the catalog also queues fields nobody queued (bulk loads, upgrades).
    await this.ensureState();
    for (;;) {
      await this.running;
      await this.processQueue(true);
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
      for (const id of fieldIds) {
        const f = state.fields.get(id);
        if (!f) continue;
        tags.add(f.tagId);
        levels.add(f.level);
        // Fields that have this one among their neighbours most likely are among its own neighbours.
        if (fieldIds.length <= BATCH) for (const key of state.index.search(f.embedding, NEIGHBOURS_K + 1).keys) affected.add(state.byKey[key]?.id ?? id);
      }
      const pick = (members: Set<string>): void => {
        if (members.size === 0) return;
        // Rotating start so repeated changes refresh different peers.
        const start = Math.floor(Math.random() * members.size);
        let i = 0;
        let taken = 0;
        for (const id of members) {
          if (i++ < start) continue;
          affected.add(id);
          if (++taken >= PEERS_PER_CHANGE) return;
        }
        for (const id of members) {
          if (taken++ >= PEERS_PER_CHANGE) return;
          affected.add(id);
        }
      };
      for (const t of tags) {
        const tag = state.tags.get(t);
        if (tag) pick(tag.members);
      }
      for (const l of levels) {
        const level = state.levels.get(l);
        if (level) pick(level.members);
      }
    }
    const live = await repo.existingFieldIds(trx, [...affected]);
    await repo.enqueue(trx, [...live], this.deps.clock.now().toISOString(), randomUUID());
  }

  // ------------------------------------------------------------ reading

  /** Embedding-minibars for 1–500 fields: stored metrics plus the list-dependent mean similarity and baseline. */
  async minibars(body: MinibarsBody): Promise<MinibarsResponse> {
    await this.deps.license.assertFeature('embedding_metrics');
    const ids = [...new Set(body.field_ids)];
    let stored = await repo.findStoredMetrics(this.db, ids);
    const have = new Set(stored.map((r) => r.field_id));
    const uncomputed = ids.filter((id) => !have.has(id));
    if (uncomputed.length > 0) {
      const existing = await repo.existingFieldIds(this.db, uncomputed);
      if (existing.size > 0) {
        // Not computed yet (just imported): compute on the spot rather than answer without metrics.
        await this.computeAndSave([...existing], []);
        stored = stored.concat(await repo.findStoredMetrics(this.db, [...existing]));
      }
    }
    const byId = new Map(stored.map((r) => [r.field_id, r]));
    const state = await this.ensureState();
    const present = ids.filter((id) => byId.has(id));
    const missing = ids.filter((id) => !byId.has(id));

    // mean cos to the other listed fields = e · (S − e) / (n − 1), with S the sum of the list's unit embeddings.
    const sum = new Float32Array(state.dimensions);
    let inList = 0;
    for (const id of present) {
      const f = state.fields.get(id);
      if (f) {
        addInto(sum, f.embedding, 1);
        inList++;
      }
    }
    const items: FieldMetricItem[] = present.map((id) => {
      const r = byId.get(id) as repo.StoredMetricsRow;
      const f = state.fields.get(id);
      const mean = f && inList > 1 ? clampNum((dot(f.embedding, sum) - dot(f.embedding, f.embedding)) / (inList - 1), -1, 1) : 1;
      return toItem(r, mean);
    });
    const baseline = Object.fromEntries(
      AXIS_KEYS.map((k) => [k, items.length === 0 ? 0 : items.reduce((s, it) => s + it.scores[k], 0) / items.length]),
    ) as Record<AxisKey, number>;
    return { items, baseline_scores: baseline, field_count: items.length, missing_field_ids: missing };
  }

  /** How many fields are pending recomputation, how many exist, and when metrics were last written. */
  async status(): Promise<MetricsStatusResponse> {
    return repo.metricsStatus(this.db);
  }

  // ------------------------------------------------------------ in-memory state

  private async ensureState(): Promise<CatalogState> {
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
    const bounds = await repo.changeBounds(this.db);
    // Sequence numbers just below the current maximum that are not visible yet may belong to open transactions.
    const seen = await repo.existingSeqs(this.db, Math.max(0, bounds.max - 1000), bounds.max);
    const now = Date.now();
    this.gaps = new Map();
    for (let s = Math.max(1, bounds.max - 999); s <= bounds.max; s++) if (!seen.has(s)) this.gaps.set(s, now);
    this.maxSeen = bounds.max;
    const state = new CatalogState(this.deps.dimensions, 1024);
    let after: string | null = null;
    for (;;) {
      const page = await repo.listCatalogFields(this.db, after, 5000);
      for (const row of page) state.apply(row);
      if (page.length < 5000) break;
      after = (page[page.length - 1] as repo.CatalogFieldRow).id;
    }
    this.raws.clear();
    after = null;
    for (;;) {
      const page = await repo.listStoredRaw(this.db, after, 5000);
      for (const r of page) {
        this.raws.set(r.field_id, {
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
    this.rebuildDistributions();
    await repo.enqueueUncomputed(this.db, this.deps.clock.now().toISOString(), randomUUID());
    this.state = state;
    await this.sync();
    return state;
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
        this.state = null;
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
      for (const id of list) {
        if (!alive.has(id)) {
          state.remove(id);
          this.raws.delete(id);
        }
      }
      if (rows.length < 20_000) return;
    }
  }

  // ------------------------------------------------------------ the worker

  private async work(): Promise<void> {
    await this.ensureState();
    await this.processQueue(false);
  }

  /** Claims and recomputes batches until the queue has nothing claimable. */
  private async processQueue(untilEmpty: boolean): Promise<void> {
    for (;;) {
      if (this.stopped && !untilEmpty) return;
      const now = this.deps.clock.now();
      const nowIso = new Date(Math.max(now.getTime(), Date.now())).toISOString();
      const claims = await repo.claim(this.db, this.worker, nowIso, new Date(Date.parse(nowIso) - ABANDONED_MS).toISOString(), BATCH);
      if (claims.length === 0) return;
      // Claimed after the change committed: syncing now sees it.
      await this.computeAndSave(
        claims.map((c) => c.field_id),
        claims,
      );
    }
  }

  private async computeAndSave(ids: readonly string[], claims: ReadonlyArray<{ field_id: string; token: string }>): Promise<void> {
    const state = await this.ensureState();
    const rows = await this.computeFields(state, ids);
    await this.db.transaction().execute(async (trx) => repo.saveMetrics(trx, rows, claims));
  }

  private rebuildDistributions(): void {
    const values = [...this.raws.values()];
    this.distributions = values.length > 0 ? buildAxisDistributions(values.map((v) => v.raw)) : null;
    const peer = values.flatMap((v) => (v.peer === null ? [] : [v.peer]));
    const anchor = values.flatMap((v) => (v.anchor === null ? [] : [v.anchor]));
    this.scales = peer.length >= 20 && anchor.length >= 20 ? { peer: marginScale(peer), anchor: marginScale(anchor) } : undefined;
    this.rawsAtBuild = values.length;
    this.computedSinceBuild = 0;
  }

  /**
   * Measures the fields of the distribution sample that have no remembered raw values; true when it measured any.
   * The sample is the whole catalog up to DISTRIBUTION_SAMPLE fields, else the fields whose id hash falls below
   * the matching share of the hash range (a deterministic, uniform sample that stays stable as the catalog grows).
   */
  private coverDistributionSample(state: CatalogState, measure: (f: FieldState) => unknown): boolean {
    const limit = state.fields.size <= DISTRIBUTION_SAMPLE ? Infinity : (DISTRIBUTION_SAMPLE / state.fields.size) * 2 ** 32;
    let measured = 0;
    for (const f of state.fields.values()) {
      if (f.hash < limit && !this.raws.has(f.id)) {
        measure(f);
        measured++;
      }
    }
    return measured > 0;
  }

  /** Computes the metrics of the given fields from the in-memory catalog (fields it does not hold are skipped). */
  private async computeFields(state: CatalogState, ids: readonly string[]): Promise<repo.FieldMetricsRow[]> {
    const anchors = await this.deps.taxonomy.tagAnchors();
    const tagIndex = anchors.index;
    const label = (tagId: number, level: string | null): string => {
      const path = tagIndex.byId.get(tagId)?.chain_path ?? `tag ${tagId}`;
      return level === null ? path : `${path} (${level})`;
    };
    // Blended anchors: the text anchor, joined by the mean of the tag's confirmed fields once there are enough.
    const anchorOf = new Map<number, Float32Array>();
    tagIndex.tags.forEach((tag, i) => {
      const text = anchors.vectors[i];
      if (!text || text.length !== state.dimensions) return;
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

    type Measured = {
      f: FieldState;
      axes: ReturnType<typeof computeAxes>;
      neighbours: Array<{ f: FieldState; similarity: number }>;
      margins: ReturnType<typeof computeTagMargins>;
      disagreement: number;
      nearestRatio: number | null;
    };
    /** Everything of a field's metrics that does not depend on the catalog distributions; remembers its raw values. */
    const measure = (f: FieldState): Measured => {
      const tag = state.tags.get(f.tagId);
      const level = state.levels.get(f.level);
      const found = state.index.search(f.embedding, NEIGHBOURS_K + 1);
      const neighbours: Array<{ f: FieldState; similarity: number }> = [];
      found.keys.forEach((key, i) => {
        const n = state.byKey[key];
        if (n && n.id !== f.id && neighbours.length < NEIGHBOURS_K) neighbours.push({ f: n, similarity: found.similarities[i] ?? 0 });
      });
      const peers = state.peersOf(f);
      const axes = computeAxes({
        embedding: f.embedding,
        anchor: anchorOf.get(f.tagId) ?? null,
        levelSum: level?.sum ?? null,
        levelCount: level?.count ?? 0,
        tagSum: tag?.sum ?? null,
        tagCount: tag?.count ?? 0,
        peerSample: peers,
        nearest: neighbours[0] ? { similarity: neighbours[0].similarity } : null,
      });
      const margins = computeTagMargins(f.embedding, f.tagId, tagStats);
      const labelled = neighbours.map((n) => ({ similarity: n.similarity, tag_id: n.f.tagId, level: n.f.level }));
      const disagreement = neighbourDisagreement(labelled, { tag_id: f.tagId, level: f.level });
      const nearestRatio = nearestTagEvidence(labelled, { tag_id: f.tagId }, axes.nearest_peer_similarity).ratio;
      this.raws.set(f.id, { raw: axes.raw, peer: margins.peerMargin, anchor: margins.anchorMargin });
      return { f, axes, neighbours, margins, disagreement, nearestRatio };
    };

    const pre: Measured[] = [];
    // Same-tag fields one after another: they share the peer sample, which then stays in the CPU cache (this
    // halved the time of the axes at 100k fields). Every YIELD_EVERY fields, requests get the event loop.
    const batch = ids.flatMap((id) => state.fields.get(id) ?? []).sort((a, b) => a.tagId - b.tagId);
    for (let i = 0; i < batch.length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      pre.push(measure(batch[i] as FieldState));
      this.computedSinceBuild++;
    }
    // Percentiles and margin scales must describe the whole catalog, not the part computed so far: otherwise the
    // first fields of a new catalog would be ranked against each other alone, and a field's stored scores would
    // depend on when it happened to be computed. So, before normalising, the raw values are completed over the
    // distribution sample (the whole catalog up to DISTRIBUTION_SAMPLE fields, beyond that the fields with the
    // smallest id hash); they are only measured, not stored (each is stored when its own turn comes).
    if (this.covered?.state !== state || this.covered.version !== state.version) {
      this.covered = { state, version: state.version };
      if (this.coverDistributionSample(state, measure)) this.rebuildDistributions();
    }
    // Rebuilt once 5% of the remembered values have changed since the last build.
    if (!this.distributions || this.computedSinceBuild > 0.05 * Math.max(this.rawsAtBuild, 1)) {
      this.rebuildDistributions();
    }
    const distributions = this.distributions as AxisDistributions;
    const computedAt = this.deps.clock.now().toISOString();
    return pre.map(({ f, axes, neighbours, margins, disagreement, nearestRatio }) => {
      const scores = normalizeAxes(axes.raw, distributions);
      const input = { scores, neighbourDisagreement: disagreement, anchorMargin: margins.anchorMargin, peerMargin: margins.peerMargin, nearestRatio, ...(this.scales ? { scales: this.scales } : {}) };
      const score = outlierScore(input);
      const severity = severityOf(score, this.deps.severity);
      const nearest = neighbours[0];
      const betterTag =
        margins.peerMargin !== null && margins.peerMargin < 0 && margins.bestOtherPeerTagId !== null
          ? { classification: label(margins.bestOtherPeerTagId, null), by: 'peers' as const }
          : margins.anchorMargin !== null && margins.anchorMargin < 0 && margins.bestOtherAnchorTagId !== null
            ? { classification: label(margins.bestOtherAnchorTagId, null), by: 'anchor' as const }
            : null;
      const reason = reasonFor({
        classification: label(f.tagId, f.level),
        scores,
        nearest: nearest
          ? {
              name: nearest.f.name,
              similarity: nearest.similarity,
              classification: label(nearest.f.tagId, nearest.f.level),
              sameClassification: nearest.f.tagId === f.tagId && nearest.f.level === f.level,
            }
          : null,
        betterTag,
        terms: outlierTerms(input),
        severity,
      });
      return {
        field_id: f.id,
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
        nearest_field_id: nearest?.f.id ?? null,
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

function toItem(r: repo.StoredMetricsRow, meanSimilarity: number): FieldMetricItem {
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
    nearest_field_id: r.nearest_field_name === null ? null : r.nearest_field_id,
    nearest_field_name: r.nearest_field_name === null ? null : `${r.nearest_table_name}.${r.nearest_field_name}`,
    reason: r.reason,
  };
}
