// The six axes of a field's metrics, written once: their keys, the stored columns and API descriptions derived from
// them, their computation from a field's neighbourhood, and their normalisation against the catalog. Adding an axis
// means adding an entry to AXES, a definition in computeAxes, and a migration adding its two columns.
// docs/metrics.md explains every definition; keep the two in step.
import type { MetricsAxisKey } from '../../db/schema.js';
import { clamp, cosine, dot, finiteOr, norm, quantileSorted } from './vectors.js';

/** Each axis with what it measures (API documentation); reason.ts says in words what a weak one means. */
export const AXES = {
  category_anchor: { description: "fit to the anchor of the field's tag" },
  centroid: { description: 'consistency with the centroid of same-level fields' },
  peer_mean: { description: 'average similarity to same-tag fields' },
  nearest: { description: 'agreement of the nearest fields in the catalog with its classification' },
  lower_quartile: { description: 'lower quartile of the similarity to same-tag fields' },
  farthest: { description: 'similarity to the farthest same-tag field' },
} as const;

export type AxisKey = keyof typeof AXES;
// The database schema names the axes' columns itself (db/schema.ts depends on no module): both lists must be the same.
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const AXES_MATCH_SCHEMA: SameKeys<AxisKey, MetricsAxisKey> = true;
void AXES_MATCH_SCHEMA;
export const AXIS_KEYS = Object.keys(AXES) as readonly AxisKey[] as readonly [AxisKey, ...AxisKey[]];
/** Raw cosine distances (1 − cos) in [0, 2]; lower = closer. */
export type RawAxes = Record<AxisKey, number>;
/** Scores in [0, 1]; higher = fits its classification better (catalog percentiles for the outlier model, fit scores for the bars). */
export type AxisScores = Record<AxisKey, number>;

/** The stored columns of an axis: its raw distance and its normalised score. */
export type RawColumn = `raw_${AxisKey}`;
export type ScoreColumn = `score_${AxisKey}`;
export const RAW_COLUMNS = AXIS_KEYS.map((k) => `raw_${k}` as RawColumn);
export const SCORE_COLUMNS = AXIS_KEYS.map((k) => `score_${k}` as ScoreColumn);

/** An object with one value per axis. */
export function perAxis<T>(value: (axis: AxisKey, i: number) => T): Record<AxisKey, T> {
  return Object.fromEntries(AXIS_KEYS.map((k, i) => [k, value(k, i)])) as Record<AxisKey, T>;
}

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
   * A bounded, deterministic sample of other same-tag fields' unit embeddings (never the field itself): the peers
   * P(f) of `peer_mean`, `lower_quartile` and `farthest`.
   */
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
  if (peerSims.length > 0) {
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
  return Object.fromEntries(
    AXIS_KEYS.map((k) => [k, AxisDistribution.fromValues(cols[k], resolution)]),
  ) as AxisDistributions;
}

/** Normalised scores: per axis, the share of the catalog that fits worse. */
export function normalizeAxes(raw: RawAxes, distributions: AxisDistributions): AxisScores {
  return Object.fromEntries(AXIS_KEYS.map((k) => [k, distributions[k].rank(raw[k])])) as AxisScores;
}
