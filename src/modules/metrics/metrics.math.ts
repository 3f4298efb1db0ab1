// Pure maths of the per-field metrics: the six axes, their normalisation, the outlier model, severity,
// reason sentences, and the evaluation measures used by the quality benchmark. No I/O, no database.
// docs/metrics.md explains every definition and constant here; keep the two in step.

export const AXIS_KEYS = ['category_anchor', 'centroid', 'peer_mean', 'nearest', 'lower_quartile', 'farthest'] as const;
export type AxisKey = (typeof AXIS_KEYS)[number];
/** Raw cosine distances (1 − cos) in [0, 2]; lower = closer. */
export type RawAxes = Record<AxisKey, number>;
/** Normalised scores in [0, 1]; higher = fits its classification better. */
export type AxisScores = Record<AxisKey, number>;

// ---------------------------------------------------------------- vector helpers

/** Dot product (equals cosine for unit vectors). Four accumulators let V8 pipeline the loop. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + s2 + s3;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero (never NaN). */
export function cosine(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  if (aa === 0 || bb === 0) return 0;
  return clamp(ab / Math.sqrt(aa * bb), -1, 1);
}

/** Euclidean norm. */
export function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

/** Unit vector along `a` (a new array); the zero vector stays zero. */
export function normalize(a: Float32Array): Float32Array {
  return normalizeInto(new Float32Array(a.length), a);
}

/** Writes the unit vector along `a` into `out` and returns `out`; the zero vector stays zero. */
export function normalizeInto<T extends Float32Array>(out: T, a: Float32Array): T {
  const n = norm(a);
  for (let i = 0; i < a.length; i++) out[i] = n === 0 ? 0 : a[i]! / n;
  return out;
}

/** Unit mean direction of a set of vectors (the normalised sum); null for an empty set or a zero sum. */
export function meanUnit(vectors: readonly Float32Array[]): Float32Array | null {
  const first = vectors[0];
  if (!first) return null;
  const sum = new Float32Array(first.length);
  for (const v of vectors) addInto(sum, v, 1);
  // A sum that cancels out (up to float32 rounding) has no direction.
  return norm(sum) <= 1e-6 * vectors.length ? null : normalize(sum);
}

/** sum += sign · v, in place (per-tag / per-level running sums: O(d) per change). */
export function addInto(sum: Float32Array, v: Float32Array, sign: 1 | -1 = 1): void {
  const n = Math.min(sum.length, v.length);
  for (let i = 0; i < n; i++) sum[i]! += sign * v[i]!;
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

function finiteOr(x: number, fallback: number): number {
  return Number.isFinite(x) ? x : fallback;
}

/** Linear-interpolation quantile (type 7) of an ascending array; p in [0,1]. */
function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

// ---------------------------------------------------------------- the six raw axes

export interface RawAxesInput {
  /** The field's unit embedding e_f. */
  embedding: Float32Array;
  /** The tag's anchor a_t (any length > 0; normalised here), or null when the tag has none. */
  anchor: Float32Array | null;
  /**
   * Sum of the unit embeddings of every field at the field's level, INCLUDING the field itself (the running
   * sum the service keeps), and that count. The field is subtracted here so c_l is "the other fields".
   */
  levelSum: Float32Array | null;
  levelCount: number;
  /**
   * Optional exact peer mean: sum and count of the unit embeddings of every field with the same tag,
   * INCLUDING the field itself. When given, `peer_mean` is exact; otherwise it is the mean over `peerSample`.
   */
  tagSum?: Float32Array | null;
  tagCount?: number;
  /** A bounded, deterministic sample of other same-tag fields' unit embeddings (never the field itself). */
  peerSample: readonly Float32Array[];
  /** The nearest other field in the catalog, or null when there is none. */
  nearest: { similarity: number } | null;
}

export interface AxesResult {
  raw: RawAxes;
  /** cos(e_f, a_t) (after fallback). */
  category_similarity: number;
  /** cos(e_f, c_l) (after fallback). */
  centroid_similarity: number;
  /** Highest similarity to a field of the peer sample (its closest same-tag field there); null without peers. */
  nearest_peer_similarity: number | null;
  /** Axes whose value came from a fallback rather than its own definition. */
  fallbacks: AxisKey[];
}

/** Value used when nothing at all is known: cos = 0, i.e. "unrelated", distance 1. */
const NO_EVIDENCE_SIMILARITY = 0;

/**
 * The six raw axes (cosine distances, lower = closer) with documented fallbacks; never NaN.
 * Fallback chain: anchor → peer mean → 0 similarity; centroid/peer axes/nearest → anchor similarity.
 */
export function computeAxes(input: RawAxesInput): AxesResult {
  const e = input.embedding;
  const fallbacks: AxisKey[] = [];

  // Peer similarities from the sample (self must not be in it).
  // Unit vectors: the dot product is the cosine (half the work of cosine(), which runs once per peer per field).
  const peerSims = new Float64Array(input.peerSample.length);
  for (let i = 0; i < input.peerSample.length; i++) peerSims[i] = clamp(dot(e, input.peerSample[i]!), -1, 1);
  peerSims.sort();

  let peerMean: number | null = null;
  const tagCount = input.tagCount ?? 0;
  if (input.tagSum && tagCount > 1) {
    // mean cos to the other members = e · (S − e) / (n − 1) for unit vectors.
    peerMean = (dot(e, input.tagSum) - dot(e, e)) / (tagCount - 1);
  } else if (peerSims.length > 0) {
    let s = 0;
    for (const v of peerSims) s += v;
    peerMean = s / peerSims.length;
  }
  if (peerMean !== null) peerMean = clamp(finiteOr(peerMean, NO_EVIDENCE_SIMILARITY), -1, 1);

  let anchorSim: number;
  if (input.anchor && norm(input.anchor) > 0) {
    anchorSim = cosine(e, input.anchor);
  } else {
    fallbacks.push('category_anchor');
    anchorSim = peerMean ?? NO_EVIDENCE_SIMILARITY;
  }

  let centroidSim: number;
  if (input.levelSum && input.levelCount > 1) {
    // cos(e, L − e) from dot products, without building L − e: |L − e|² = L·L − 2 e·L + e·e.
    const eL = dot(e, input.levelSum);
    const ee = dot(e, e);
    const othersSq = dot(input.levelSum, input.levelSum) - 2 * eL + ee;
    if (othersSq > 1e-18 && ee > 0) {
      centroidSim = clamp((eL - ee) / Math.sqrt(ee * othersSq), -1, 1);
    } else {
      fallbacks.push('centroid');
      centroidSim = anchorSim;
    }
  } else {
    fallbacks.push('centroid');
    centroidSim = anchorSim;
  }

  if (peerMean === null) {
    fallbacks.push('peer_mean');
    peerMean = anchorSim;
  }

  let lowerQuartile: number;
  let farthest: number;
  if (peerSims.length > 0) {
    lowerQuartile = quantileSorted(peerSims, 0.25);
    farthest = peerSims[0]!;
  } else {
    fallbacks.push('lower_quartile', 'farthest');
    lowerQuartile = anchorSim;
    farthest = anchorSim;
  }

  let nearestSim: number;
  if (input.nearest && Number.isFinite(input.nearest.similarity)) {
    nearestSim = input.nearest.similarity;
  } else {
    fallbacks.push('nearest');
    nearestSim = anchorSim;
  }

  const toDistance = (sim: number): number => clamp(1 - finiteOr(sim, NO_EVIDENCE_SIMILARITY), 0, 2);
  return {
    raw: {
      category_anchor: toDistance(anchorSim),
      centroid: toDistance(centroidSim),
      peer_mean: toDistance(peerMean),
      nearest: toDistance(nearestSim),
      lower_quartile: toDistance(lowerQuartile),
      farthest: toDistance(farthest),
    },
    category_similarity: clamp(finiteOr(anchorSim, 0), -1, 1),
    centroid_similarity: clamp(finiteOr(centroidSim, 0), -1, 1),
    nearest_peer_similarity: peerSims.length > 0 ? clamp(finiteOr(peerSims[peerSims.length - 1]!, 0), -1, 1) : null,
    fallbacks,
  };
}

/** The six raw axes only (see computeAxes). */
export function computeRawAxes(input: RawAxesInput): RawAxes {
  return computeAxes(input).raw;
}

// ---------------------------------------------------------------- normalisation

export interface AxisDistributionJson {
  v: 1;
  /** Number of catalog values the quantiles summarise. */
  count: number;
  /** Ascending quantiles of the raw values at p = i / (length − 1). */
  quantiles: number[];
}

/**
 * Empirical distribution of one axis's raw values over the catalog, kept as ≤ `resolution` quantiles
 * (compact, JSON-serialisable). `rank(raw)` = share of the catalog whose raw value is worse (larger), so
 * 1 = fits better than every field, 0 = worse than every field. Dimension-free and explainable.
 */
export class AxisDistribution {
  private constructor(
    readonly count: number,
    private readonly q: Float64Array,
  ) {}

  static readonly DEFAULT_RESOLUTION = 257;

  /** Summarises raw values (non-finite values are ignored). */
  static fromValues(values: Iterable<number>, resolution = AxisDistribution.DEFAULT_RESOLUTION): AxisDistribution {
    const sorted = Float64Array.from([...values].filter((v) => Number.isFinite(v))).sort();
    if (sorted.length === 0) return new AxisDistribution(0, new Float64Array(0));
    const r = Math.max(2, Math.min(Math.floor(resolution), sorted.length));
    const q = new Float64Array(r);
    for (let i = 0; i < r; i++) q[i] = quantileSorted(sorted, i / (r - 1));
    return new AxisDistribution(sorted.length, q);
  }

  static fromJSON(json: AxisDistributionJson): AxisDistribution {
    const q = Float64Array.from(json.quantiles.filter((v) => Number.isFinite(v))).sort();
    return new AxisDistribution(q.length === 0 ? 0 : json.count, q);
  }

  toJSON(): AxisDistributionJson {
    // 6 significant digits keep the JSON small; ranks move by < 1e-5.
    return { v: 1, count: this.count, quantiles: Array.from(this.q, (x) => Number(x.toPrecision(6))) };
  }

  /**
   * Share of the catalog with a worse (larger) raw value, in [0, 1]; monotone non-increasing in `raw`.
   * Interpolates between stored quantiles; exact ties take the middle of the tied range. With an empty
   * distribution falls back to the fixed map 1 − raw / 2 (raw is a distance in [0, 2]).
   */
  rank(raw: number): number {
    const q = this.q;
    const r = q.length;
    if (!Number.isFinite(raw)) return 0;
    if (r === 0) return clamp(1 - raw / 2, 0, 1);
    if (raw < q[0]!) return 1;
    if (raw > q[r - 1]!) return 0;
    let lo = 0;
    let hi = r;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (q[mid]! < raw) lo = mid + 1;
      else hi = mid;
    }
    const lower = lo; // first q >= raw
    let upper = lower;
    while (upper < r && q[upper] === raw) upper++;
    let cdf: number;
    if (upper > lower) {
      cdf = (lower + upper - 1) / 2 / (r - 1);
    } else {
      const a = q[lower - 1]!;
      const b = q[lower]!;
      cdf = (lower - 1 + (raw - a) / (b - a)) / (r - 1);
    }
    if (r === 1) cdf = 0.5;
    return clamp(1 - cdf, 0, 1);
  }
}

export type AxisDistributions = Record<AxisKey, AxisDistribution>;

/** Builds the six distributions from the catalog's raw axes. */
export function buildAxisDistributions(rows: Iterable<RawAxes>, resolution?: number): AxisDistributions {
  const cols = Object.fromEntries(AXIS_KEYS.map((k) => [k, [] as number[]])) as Record<AxisKey, number[]>;
  for (const row of rows) for (const k of AXIS_KEYS) cols[k].push(row[k]);
  return Object.fromEntries(AXIS_KEYS.map((k) => [k, AxisDistribution.fromValues(cols[k], resolution)])) as AxisDistributions;
}

/** Normalised scores: per axis, the share of the catalog that fits worse. */
export function normalizeAxes(raw: RawAxes, distributions: AxisDistributions): AxisScores {
  return Object.fromEntries(AXIS_KEYS.map((k) => [k, distributions[k].rank(raw[k])])) as AxisScores;
}

// ---------------------------------------------------------------- tag margins ("does another tag fit better?")

export interface TagStats {
  tagId: number;
  /** Unit anchor of the tag, or null. */
  anchor: Float32Array | null;
  /** Sum of the unit embeddings of the tag's fields and their count. */
  sum: Float32Array | null;
  count: number;
}

export interface TagMargins {
  /** cos(e, a_own) − max over other tags of cos(e, a_other); null without anchors to compare. */
  anchorMargin: number | null;
  bestOtherAnchorTagId: number | null;
  bestOtherAnchorSimilarity: number | null;
  /**
   * Shrunk mean similarity to the own tag's other fields minus the best such value over the other tags;
   * null when there is nothing to compare.
   */
  peerMargin: number | null;
  bestOtherPeerTagId: number | null;
}

/**
 * Prior pseudo-count for mean similarity to a tag's members: e·S / (n + PEER_PRIOR). A tag with one member
 * that happens to be close must not beat a well-populated tag on luck; the shrinkage is toward 0 (unrelated).
 */
export const PEER_PRIOR = 1;

/** Mean similarity of `e` to the members of a tag from its running sum, excluding `e` itself when a member. */
export function shrunkPeerMean(e: Float32Array, sum: Float32Array, count: number, isMember: boolean): number | null {
  const n = isMember ? count - 1 : count;
  if (n <= 0) return null;
  const s = dot(e, sum) - (isMember ? dot(e, e) : 0);
  return s / (n + PEER_PRIOR);
}

/**
 * How much better the field's own tag fits than the best other tag, by anchor and by members; O(T·d).
 * `embedding` and the anchors are unit vectors (dot products are their cosines: this runs for every tag for every
 * field).
 * Both margins are negative when another tag fits better — the strongest single sign of a wrong label.
 */
export function computeTagMargins(embedding: Float32Array, ownTagId: number, tags: Iterable<TagStats>): TagMargins {
  let ownAnchor: number | null = null;
  let bestAnchor = -Infinity;
  let bestAnchorTag: number | null = null;
  let ownPeer: number | null = null;
  let bestPeer = -Infinity;
  let bestPeerTag: number | null = null;
  for (const t of tags) {
    const own = t.tagId === ownTagId;
    if (t.anchor) {
      const s = dot(embedding, t.anchor);
      if (own) ownAnchor = s;
      else if (s > bestAnchor) {
        bestAnchor = s;
        bestAnchorTag = t.tagId;
      }
    }
    if (t.sum) {
      const m = shrunkPeerMean(embedding, t.sum, t.count, own);
      if (m === null) continue;
      if (own) ownPeer = m;
      else if (m > bestPeer) {
        bestPeer = m;
        bestPeerTag = t.tagId;
      }
    }
  }
  const anchorMargin = ownAnchor !== null && bestAnchorTag !== null ? ownAnchor - bestAnchor : null;
  // A tag that has no other member yet has peer similarity 0 (unrelated) rather than "unknown".
  const peerOwn = ownPeer ?? 0;
  const peerMargin = bestPeerTag !== null ? peerOwn - bestPeer : null;
  return {
    anchorMargin,
    bestOtherAnchorTagId: bestAnchorTag,
    bestOtherAnchorSimilarity: bestAnchorTag !== null ? bestAnchor : null,
    peerMargin,
    bestOtherPeerTagId: bestPeerTag,
  };
}

/**
 * Robust spread of a margin over the catalog (1.4826 × median absolute deviation, floored), used to make
 * margins dimension-free: an embedder with tighter clusters gets a smaller scale.
 */
export function marginScale(values: Iterable<number>, floor = 0.005): number {
  const v = Float64Array.from([...values].filter((x) => Number.isFinite(x))).sort();
  if (v.length < 2) return DEFAULT_MARGIN_SCALE;
  const med = quantileSorted(v, 0.5);
  const dev = Float64Array.from(v, (x) => Math.abs(x - med)).sort();
  return Math.max(floor, 1.4826 * quantileSorted(dev, 0.5));
}

/** Scale used before the catalog has enough fields to estimate one (typical of 100-d word-vector embedders). */
export const DEFAULT_MARGIN_SCALE = 0.05;

// ---------------------------------------------------------------- neighbour disagreement

export interface Neighbour {
  similarity: number;
  tag_id: number;
  level: string;
}

/**
 * Similarity-weighted share of the neighbours carrying another classification, in [0, 1]:
 * another tag counts 1, the same tag at another level counts 0.5; weights max(similarity, 0).
 * No neighbours (or only non-positive similarities) → 0, "no evidence against".
 */
export function neighbourDisagreement(neighbours: readonly Neighbour[], self: { tag_id: number; level: string }): number {
  let w = 0;
  let bad = 0;
  for (const n of neighbours) {
    const s = Number.isFinite(n.similarity) ? Math.max(0, n.similarity) : 0;
    w += s;
    if (n.tag_id !== self.tag_id) bad += s;
    else if (n.level !== self.level) bad += 0.5 * s;
  }
  return w > 0 ? clamp(bad / w, 0, 1) : 0;
}

// ---------------------------------------------------------------- nearest own-tag vs. other-tag field

/**
 * Cosine distance added to both distances of the nearest-field ratio, so that near-duplicates (distance ≈ 0) cannot
 * turn a tiny difference into a huge ratio.
 */
export const NEAREST_RATIO_EPSILON = 0.02;

export interface NearestTagEvidence {
  /** Similarity to the closest other field with the same tag; 0 ("unrelated") when none is known. */
  ownSimilarity: number;
  /**
   * Similarity to the closest field with another tag; when none of the neighbours has another tag, the similarity
   * of the farthest neighbour examined (an upper bound). Null without neighbours.
   */
  otherSimilarity: number | null;
  /**
   * log((d_own + ε) / (d_other + ε)) with d = 1 − similarity: positive when a field of another tag is closer than
   * every field of its own tag (+0.69 = twice as close). Null without neighbours.
   */
  ratio: number | null;
}

/**
 * Compares the field's closest same-tag field with its closest field of another tag (the "trust score" of
 * Jiang et al., 2018, in log form and reversed, so higher = more suspicious). The closest same-tag field is the
 * best of the same-tag neighbours and of the peer sample (`nearestPeerSimilarity`); the closest other-tag field
 * comes from the neighbours. Dimension-free: multiplying every distance by a constant leaves it unchanged
 * (up to ε).
 */
export function nearestTagEvidence(
  neighbours: readonly Pick<Neighbour, 'similarity' | 'tag_id'>[],
  self: { tag_id: number },
  nearestPeerSimilarity: number | null,
): NearestTagEvidence {
  let own = nearestPeerSimilarity !== null && Number.isFinite(nearestPeerSimilarity) ? nearestPeerSimilarity : -Infinity;
  let other = -Infinity;
  let farthest = Infinity;
  for (const n of neighbours) {
    if (!Number.isFinite(n.similarity)) continue;
    farthest = Math.min(farthest, n.similarity);
    if (n.tag_id === self.tag_id) own = Math.max(own, n.similarity);
    else other = Math.max(other, n.similarity);
  }
  const ownSimilarity = Number.isFinite(own) ? clamp(own, -1, 1) : 0;
  const otherRaw = Number.isFinite(other) ? other : farthest;
  if (!Number.isFinite(otherRaw)) return { ownSimilarity, otherSimilarity: null, ratio: null };
  const otherSimilarity = clamp(otherRaw, -1, 1);
  const e = NEAREST_RATIO_EPSILON;
  return { ownSimilarity, otherSimilarity, ratio: Math.log((1 - ownSimilarity + e) / (1 - otherSimilarity + e)) };
}

/**
 * The benchmark's baseline: for every field, the similarity-weighted share of its k nearest other fields
 * (exact, brute force) with another tag. O(n² d); meant for benchmark catalogs, not the service.
 */
export function knnDisagreementBaseline(vectors: readonly Float32Array[], tagIds: readonly number[], k = 10): number[] {
  const neighbours = exactNeighbours(vectors, k);
  return neighbours.map((list, i) => {
    let w = 0;
    let bad = 0;
    for (const { index, similarity } of list) {
      const s = Math.max(0, similarity);
      w += s;
      if (tagIds[index] !== tagIds[i]) bad += s;
    }
    return w > 0 ? bad / w : 0;
  });
}

/** Exact k nearest other vectors for every vector, by cosine (dot of unit vectors), best first. */
export function exactNeighbours(vectors: readonly Float32Array[], k: number): Array<Array<{ index: number; similarity: number }>> {
  const n = vectors.length;
  const kk = Math.min(k, Math.max(0, n - 1));
  const out: Array<Array<{ index: number; similarity: number }>> = [];
  for (let i = 0; i < n; i++) {
    const idx = new Int32Array(kk).fill(-1);
    const sim = new Float64Array(kk).fill(-Infinity);
    const vi = vectors[i]!;
    for (let j = 0; j < n; j++) {
      if (j === i || kk === 0) continue;
      const s = dot(vi, vectors[j]!);
      if (s <= sim[kk - 1]!) continue;
      let p = kk - 1;
      while (p > 0 && sim[p - 1]! < s) {
        sim[p] = sim[p - 1]!;
        idx[p] = idx[p - 1]!;
        p--;
      }
      sim[p] = s;
      idx[p] = j;
    }
    const list: Array<{ index: number; similarity: number }> = [];
    for (let p = 0; p < kk; p++) if (idx[p]! >= 0) list.push({ index: idx[p]!, similarity: sim[p]! });
    out.push(list);
  }
  return out;
}

// ---------------------------------------------------------------- the outlier model

export interface OutlierInput {
  scores: AxisScores;
  /** neighbourDisagreement() over the k nearest neighbours. */
  neighbourDisagreement: number;
  /** computeTagMargins().anchorMargin, or null. */
  anchorMargin?: number | null;
  /** computeTagMargins().peerMargin, or null. */
  peerMargin?: number | null;
  /** nearestTagEvidence().ratio, or null. */
  nearestRatio?: number | null;
  /** Catalog spreads of the two margins (marginScale()); defaults to DEFAULT_MARGIN_SCALE. */
  scales?: { anchor: number; peer: number };
}

/**
 * Fixed logistic weights (docs/metrics.md, "Outlier model"), fitted by `bench/quality/fit.ts` on the tuning seeds
 * of the quality benchmark and rounded. Margins enter as z = margin / scale clipped to [−4, 4]; the nearest-field
 * ratio is clipped to [−3, 3]; disagreement and the axis scores are already in [0, 1].
 */
export const OUTLIER_WEIGHTS = {
  intercept: -14.4,
  /** per unit of neighbour disagreement in [0, 1] */
  disagreement: 10.4,
  /** per robust-scale unit of peer margin (negative margin → more suspicious) */
  peerMargin: 0.7,
  /** per robust-scale unit of anchor margin */
  anchorMargin: 0.7,
  /** per unit of the nearest-field log distance ratio (positive → another tag's field is closer → more suspicious) */
  nearestRatio: 1.9,
  /** per unit of (0.5 − mean of the peer_mean and category_anchor scores) */
  axisFit: 0.35,
  /** margins are clipped to ±marginClip scale units so one extreme signal cannot dominate */
  marginClip: 4,
  /** the nearest-field ratio is clipped to ±ratioClip (e³ ≈ 20 times closer) */
  ratioClip: 3,
} as const;

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

export interface OutlierTerms {
  disagreement: number;
  peerMargin: number;
  anchorMargin: number;
  nearestRatio: number;
  axisFit: number;
}

/** The additive contributions (log-odds) of each signal; the largest positive one is the strongest evidence. */
export function outlierTerms(input: OutlierInput): OutlierTerms {
  const w = OUTLIER_WEIGHTS;
  const z = (m: number | null | undefined, scale: number | undefined): number => {
    if (m === null || m === undefined || !Number.isFinite(m)) return 0;
    const s = scale !== undefined && Number.isFinite(scale) && scale > 0 ? scale : DEFAULT_MARGIN_SCALE;
    return clamp(m / s, -w.marginClip, w.marginClip);
  };
  const d = clamp(finiteOr(input.neighbourDisagreement, 0), 0, 1);
  const ratio = clamp(finiteOr(input.nearestRatio ?? 0, 0), -w.ratioClip, w.ratioClip);
  const fit = (finiteOr(input.scores.peer_mean, 0.5) + finiteOr(input.scores.category_anchor, 0.5)) / 2;
  return {
    disagreement: w.disagreement * d,
    peerMargin: -w.peerMargin * z(input.peerMargin, input.scales?.peer),
    anchorMargin: -w.anchorMargin * z(input.anchorMargin, input.scales?.anchor),
    nearestRatio: w.nearestRatio * ratio,
    axisFit: w.axisFit * (0.5 - clamp(fit, 0, 1)),
  };
}

/**
 * Outlier score in [0, 1], higher = more likely misclassified: a logistic combination of neighbour
 * disagreement, the own-vs-best-other-tag margins (members and anchor), the nearest own-tag vs. other-tag field
 * distance ratio and the axis percentiles.
 */
export function outlierScore(input: OutlierInput): number {
  const t = outlierTerms(input);
  const zsum = OUTLIER_WEIGHTS.intercept + t.disagreement + t.peerMargin + t.anchorMargin + t.nearestRatio + t.axisFit;
  return clamp(finiteOr(sigmoid(zsum), 0), 0, 1);
}

// ---------------------------------------------------------------- severity

export type Severity = 'low' | 'medium' | 'high';
export interface SeverityThresholds {
  high: number;
  medium: number;
}
export const DEFAULT_SEVERITY_THRESHOLDS: SeverityThresholds = { high: 0.7, medium: 0.4 };

/** high when score ≥ high, medium when score ≥ medium, else low. */
export function severityOf(score: number, thresholds: SeverityThresholds = DEFAULT_SEVERITY_THRESHOLDS): Severity {
  if (!(thresholds.medium <= thresholds.high)) throw new RangeError('severity thresholds: medium must not exceed high');
  if (score >= thresholds.high) return 'high';
  if (score >= thresholds.medium) return 'medium';
  return 'low';
}

// ---------------------------------------------------------------- reason sentences

export interface ReasonInput {
  /** Classification label of the field itself, e.g. "Technical/Timestamp (L2)". */
  classification: string;
  scores: AxisScores;
  /** The nearest other field: its display name (e.g. `table.column`), similarity and classification. */
  nearest?: { name: string; similarity: number; classification: string; sameClassification: boolean } | null;
  /** Another tag that fits better than the field's own (negative margin), if any. */
  betterTag?: { classification: string; by: 'anchor' | 'peers' } | null;
  /** Which outlier term dominated (outlierTerms()); optional. */
  terms?: OutlierTerms;
  severity?: Severity;
}

const AXIS_PHRASES: Record<AxisKey, string> = {
  category_anchor: "Fit to its tag's anchor",
  centroid: "Closeness to its level's centroid",
  peer_mean: 'Average similarity to fields with the same tag',
  nearest: 'Closeness to its nearest field',
  lower_quartile: 'Similarity to the less similar quarter of its same-tag fields',
  farthest: 'Similarity to its farthest same-tag field',
};

/** "lowest 3%" / "62nd percentile" phrasing of a normalised score. */
export function percentilePhrase(score: number): string {
  const pct = Math.round(clamp(score, 0, 1) * 100);
  if (pct < 50) return `in the lowest ${Math.max(1, pct)}% of the catalog`;
  const mod100 = pct % 100;
  const suffix = mod100 >= 11 && mod100 <= 13 ? 'th' : pct % 10 === 1 ? 'st' : pct % 10 === 2 ? 'nd' : pct % 10 === 3 ? 'rd' : 'th';
  return `at the ${pct}${suffix} percentile of the catalog`;
}

/** The axis with the lowest normalised score (ties: the earlier axis in AXIS_KEYS). */
export function weakestAxis(scores: AxisScores): { axis: AxisKey; score: number } {
  let axis: AxisKey = AXIS_KEYS[0];
  for (const k of AXIS_KEYS) if (scores[k] < scores[axis]) axis = k;
  return { axis, score: scores[axis] };
}

/**
 * One or two plain sentences naming the strongest evidence: the nearest field with its classification and
 * similarity (first when it disagrees), a better-fitting tag, and the weakest axis with its percentile.
 */
export function reasonFor(input: ReasonInput): string {
  const sentences: string[] = [];
  const n = input.nearest;
  if (n && !n.sameClassification) {
    sentences.push(
      `Nearest field \`${n.name}\` (similarity ${n.similarity.toFixed(2)}) is classified ${n.classification}, not ${input.classification}.`,
    );
  }
  if (input.betterTag && sentences.length < 2) {
    const by = input.betterTag.by === 'anchor' ? "that tag's anchor" : "that tag's fields";
    sentences.push(`It is closer to ${by} (${input.betterTag.classification}) than to its own tag.`);
  }
  if (sentences.length < 2) {
    const weak = weakestAxis(input.scores);
    if (weak.score < 0.5 || sentences.length === 0) {
      sentences.push(`${AXIS_PHRASES[weak.axis]} is ${percentilePhrase(weak.score)}.`);
    }
  }
  if (n && n.sameClassification && sentences.length < 2) {
    sentences.push(`Nearest field \`${n.name}\` (similarity ${n.similarity.toFixed(2)}) shares its classification ${input.classification}.`);
  }
  return sentences.slice(0, 2).join(' ');
}

// ---------------------------------------------------------------- evaluation measures

/**
 * Area under the ROC curve of `scores` for positives `labels` (Mann–Whitney U with average ranks, so ties
 * count one half). NaN when either class is empty.
 */
export function auroc(scores: readonly number[], labels: readonly boolean[]): number {
  if (scores.length !== labels.length) throw new RangeError('auroc: scores and labels differ in length');
  const order = scores.map((s, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let pos = 0;
  let rankSumPos = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) {
      if (labels[order[t]!]) {
        pos++;
        rankSumPos += avgRank;
      }
    }
    i = j + 1;
  }
  const neg = scores.length - pos;
  if (pos === 0 || neg === 0) return Number.NaN;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Share of positives among the k highest scores. Ties across the cut-off count in expectation (each tied
 * item contributes the fraction of the tied group that fits), so the result does not depend on input order.
 */
export function precisionAtK(scores: readonly number[], labels: readonly boolean[], k: number): number {
  if (scores.length !== labels.length) throw new RangeError('precisionAtK: scores and labels differ in length');
  const kk = Math.min(Math.floor(k), scores.length);
  if (kk <= 0) return Number.NaN;
  const order = scores.map((s, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  let hits = 0;
  let taken = 0;
  let i = 0;
  while (taken < kk && i < order.length) {
    let j = i;
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const group = j - i + 1;
    let groupPos = 0;
    for (let t = i; t <= j; t++) if (labels[order[t]!]) groupPos++;
    const take = Math.min(group, kk - taken);
    hits += (groupPos * take) / group;
    taken += take;
    i = j + 1;
  }
  return hits / kk;
}
