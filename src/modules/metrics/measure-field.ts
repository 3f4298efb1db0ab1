// The pure measurement of one field against its neighbourhood, beyond the six axes: how much better its own tag fits
// than the best other one (tag margins), how many of its nearest fields disagree with its classification, and how
// its closest same-tag field compares with its closest field of another tag. No I/O.
import { computeAxes, type AxesResult, type RawAxesInput } from './axes.js';
import { clamp, dot, quantileSorted } from './vectors.js';

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

// ---------------------------------------------------------------- one field

/** Everything a field is measured against: its own embedding and classification, and its neighbourhood. */
export interface FieldNeighbourhood extends Omit<RawAxesInput, 'nearest'> {
  tagId: number;
  level: string;
  /** Its nearest other fields, best first (at most the k the metrics weigh). */
  neighbours: readonly Neighbour[];
  /** Every tag's anchor and member sums (for the margins). */
  tagStats: readonly TagStats[];
}

export interface FieldMeasurement {
  axes: AxesResult;
  margins: TagMargins;
  disagreement: number;
  nearestRatio: number | null;
}

/** The six raw axes, the tag margins, neighbour disagreement and the nearest-field ratio of one field. */
export function measureField(n: FieldNeighbourhood): FieldMeasurement {
  const nearest = n.neighbours[0];
  const axes = computeAxes({ ...n, nearest: nearest ? { similarity: nearest.similarity } : null });
  const margins = computeTagMargins(n.embedding, n.tagId, n.tagStats);
  const disagreement = neighbourDisagreement(n.neighbours, { tag_id: n.tagId, level: n.level });
  const nearestRatio = nearestTagEvidence(n.neighbours, { tag_id: n.tagId }, axes.nearest_peer_similarity).ratio;
  return { axes, margins, disagreement, nearestRatio };
}
