// The pure measurement of one field against its neighbourhood, beyond the six axes: how much better its own tag fits
// than the best other one (tag margins), how many of its nearest fields disagree with its classification, and how
// its closest same-tag field compares with its closest field of another tag. No I/O.
import { computeAxes, type AxesResult, type RawAxesInput } from './axes.js';
import { clamp, dot, finiteOr, quantileSorted } from './vectors.js';

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
  // A field alone in its tag has no members to compare: no peer margin ("no evidence"), not "unrelated to its own
  // tag" — in a small catalog most correct sensitive fields are alone in their tag.
  const peerMargin = bestPeerTag !== null && ownPeer !== null ? ownPeer - bestPeer : null;
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
  /** Confirmed by a reviewer: weighs CONFIRMED_WEIGHT times as much as evidence for others. */
  confirmed?: boolean;
}

/** How much more a confirmed neighbour weighs than an unreviewed one (in disagreement, level and suggestions). */
export const CONFIRMED_WEIGHT = 2;

/** A neighbour's weight as evidence: its similarity (never negative), times CONFIRMED_WEIGHT when confirmed. */
export const weightOf = (n: Pick<Neighbour, 'similarity' | 'confirmed'>): number =>
  (Number.isFinite(n.similarity) ? Math.max(0, n.similarity) : 0) * (n.confirmed ? CONFIRMED_WEIGHT : 1);

/**
 * Similarity-weighted share of the neighbours carrying another classification, in [0, 1]:
 * another tag counts 1, the same tag at another level counts 0.5; weights max(similarity, 0), doubled for confirmed
 * neighbours. No neighbours (or only non-positive similarities) → 0, "no evidence against".
 *
 * `otherMembers` (the number of other fields with the field's tag) corrects for small tags: a field whose tag has
 * m < k other fields cannot have more than m agreeing neighbours, so a share of (k − m)/k disagreeing is what a
 * correct field shows; only disagreement beyond that floor counts, rescaled to [0, 1]. A field alone in its tag gets 0.
 */
export function neighbourDisagreement(
  neighbours: readonly Neighbour[],
  self: { tag_id: number; level: string },
  otherMembers = Infinity,
): number {
  let w = 0;
  let bad = 0;
  for (const n of neighbours) {
    const s = weightOf(n);
    w += s;
    if (n.tag_id !== self.tag_id) bad += s;
    else if (n.level !== self.level) bad += 0.5 * s;
  }
  if (w <= 0 || neighbours.length === 0) return 0;
  const raw = clamp(bad / w, 0, 1);
  const floor = 1 - Math.min(neighbours.length, Math.max(0, otherMembers)) / neighbours.length;
  if (floor >= 1) return 0;
  return clamp((raw - floor) / (1 - floor), 0, 1);
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
  let own =
    nearestPeerSimilarity !== null && Number.isFinite(nearestPeerSimilarity) ? nearestPeerSimilarity : -Infinity;
  let ownKnown = Number.isFinite(own);
  let other = -Infinity;
  let farthest = Infinity;
  for (const n of neighbours) {
    if (!Number.isFinite(n.similarity)) continue;
    farthest = Math.min(farthest, n.similarity);
    if (n.tag_id === self.tag_id) {
      own = Math.max(own, n.similarity);
      ownKnown = true;
    } else other = Math.max(other, n.similarity);
  }
  const ownSimilarity = Number.isFinite(own) ? clamp(own, -1, 1) : 0;
  const otherRaw = Number.isFinite(other) ? other : farthest;
  // No other field with the tag: nothing to compare (a lone field in a small catalog is not suspicious for that).
  if (!Number.isFinite(otherRaw) || !ownKnown) return { ownSimilarity, otherSimilarity: null, ratio: null };
  const otherSimilarity = clamp(otherRaw, -1, 1);
  const e = NEAREST_RATIO_EPSILON;
  return { ownSimilarity, otherSimilarity, ratio: Math.log((1 - ownSimilarity + e) / (1 - otherSimilarity + e)) };
}

// ---------------------------------------------------------------- one field

/** Everything a field is measured against: its own embedding and classification, and its neighbourhood. */
export interface FieldNeighbourhood extends Omit<RawAxesInput, 'nearest'> {
  tagId: number;
  level: string;
  /** How many fields carry the tag, this one included (a small tag's unavoidable strangers, neighbourDisagreement). */
  tagCount?: number;
  /** Its nearest other fields, best first (at most the k the metrics weigh). */
  neighbours: readonly Neighbour[];
  /** Every tag's anchor and member sums (for the margins). */
  tagStats: readonly TagStats[];
}

// ---------------------------------------------------------------- level and classifier evidence

/** Levels ordered least sensitive first; the rank of a level code (−1 when not configured). */
export type LevelRank = (level: string) => number;

export interface ClassificationEvidenceInput {
  tagId: number;
  level: string;
  neighbours: readonly Neighbour[];
  /**
   * The classifier's view of the field from its own name, table, comment, type and formats; null when unknown. Its
   * `labelGap`: how many points the field's label trails its answer by (absent or null: unknown).
   */
  predicted: { tagId: number; level: string; confidence: number; labelGap?: number | null } | null;
  /** How many of the tag's fields (this one included) sit at each level. */
  tagLevels: ReadonlyArray<{ level: string; count: number }>;
  /** The tag's configured default level. */
  defaultLevel: string | null;
  rank: LevelRank;
  /** Top-level group of a tag (for "far" disagreements). */
  groupOf: (tagId: number) => string;
  /**
   * The field's classification is the classifier's own answer (not given by an import, not confirmed): its agreement
   * with itself is no evidence, its doubt is.
   */
  selfClassified?: boolean;
  /** Mean similarity between two fields of the tag (from its running sum), null below two fields: low for a catch-all tag. */
  tagCohesion?: number | null;
}

export interface ClassificationEvidence {
  /** classifier confidence when it names another tag, else 0 */
  classifierOther: number;
  /** classifier confidence when it names another tag of another top-level group, else 0 */
  classifierFar: number;
  /** classifier confidence when it names the field's tag, else 0 */
  classifierAgrees: number;
  /** The level the evidence expects for the field's tag (rank), and how far below / above it the field is labelled. */
  expectedLevel: string | null;
  under: number;
  over: number;
  /** Steps below / above the classifier's level (when it names the same tag). */
  underClassifier: number;
  overClassifier: number;
  /** classifierOther for a field alone in its tag (no peers or neighbours of its tag can speak for or against it). */
  classifierOtherAlone: number;
  /**
   * How many points the label trails the classifier's answer by in the classifier's own points (0 when it names the
   * label; unknown → 0). Absent in inputs recorded before the term existed.
   */
  labelGap?: number;
  /** The field's classification is the classifier's own answer (see ClassificationEvidenceInput.selfClassified). */
  selfClassified?: boolean;
  /** For a self-classified field, 1 − the classifier's calibrated confidence in it (its own probability of being wrong); else 0. */
  selfDoubt?: number;
  /** For a self-classified field: 1 − its tag's cohesion (a tag the classifier fills with unlike fields is a catch-all). */
  selfLooseTag?: number;
}

/**
 * Evidence about the whole classification that does not come from the geometry of other fields' labels alone: the
 * classifier's own view (tag and level), and the level the tag's fields, its default and the same-tag neighbours
 * point to. Under- and over-classification are kept apart: under-classification is the costly error.
 */
export function classificationEvidence(x: ClassificationEvidenceInput): ClassificationEvidence {
  const own = x.rank(x.level);
  const p = x.predicted;
  const other = p !== null && p.tagId !== x.tagId;
  const classifierOther = other ? p.confidence : 0;
  const classifierFar = other && x.groupOf(p.tagId) !== x.groupOf(x.tagId) ? p.confidence : 0;
  const classifierAgrees = p !== null && !other ? p.confidence : 0;
  // Expected level: a weighted vote of the tag's other fields (each 1), its default (2), same-tag neighbours
  // (similarity-weighted, confirmed double, ×3) and the classifier when it names the same tag (confidence ×3).
  const votes = new Map<string, number>();
  const vote = (level: string | null, w: number): void => {
    if (level === null || w <= 0 || x.rank(level) < 0) return;
    votes.set(level, (votes.get(level) ?? 0) + w);
  };
  for (const { level, count } of x.tagLevels) vote(level, level === x.level ? count - 1 : count);
  vote(x.defaultLevel, 2);
  for (const n of x.neighbours) if (n.tag_id === x.tagId) vote(n.level, 3 * weightOf(n));
  if (p !== null && !other) vote(p.level, 3 * p.confidence);
  let expectedLevel: string | null = null;
  let best = 0;
  for (const [level, w] of votes) {
    if (w > best || (w === best && expectedLevel !== null && x.rank(level) > x.rank(expectedLevel))) {
      best = w;
      expectedLevel = level;
    }
  }
  const exp = expectedLevel === null || own < 0 ? own : x.rank(expectedLevel);
  const pr = p !== null && !other ? x.rank(p.level) : -1;
  return {
    classifierOther,
    classifierFar,
    classifierAgrees,
    expectedLevel,
    under: own < 0 ? 0 : Math.max(0, exp - own),
    over: own < 0 ? 0 : Math.max(0, own - exp),
    underClassifier: own < 0 || pr < 0 ? 0 : Math.max(0, pr - own) * (p?.confidence ?? 0),
    overClassifier: own < 0 || pr < 0 ? 0 : Math.max(0, own - pr) * (p?.confidence ?? 0),
    classifierOtherAlone: x.tagLevels.reduce((n, l) => n + l.count, 0) <= 1 ? classifierOther : 0,
    labelGap: other ? Math.max(0, finiteOr(p.labelGap ?? 0, 0)) : 0,
    selfClassified: x.selfClassified === true,
    selfDoubt: x.selfClassified === true && p !== null && !other ? clamp(1 - p.confidence, 0, 1) : 0,
    selfLooseTag:
      x.selfClassified === true && x.tagCohesion !== null && x.tagCohesion !== undefined
        ? clamp(1 - x.tagCohesion, 0, 2)
        : 0,
  };
}

// ---------------------------------------------------------------- how much the classifier had to go on

/** What the classifier's answer rested on, read from its evidence list (fields.classification_evidence). */
export interface ClassifierSupport {
  /** Points the chosen tag got from the words of the name, table, columns and comment, the values and confirmed fields (not the type prior or the anchor). */
  words: number;
  /** The best runner-up's points (its strongest evidence items, as listed) over the chosen tag's points, in [0, 1]; 0 when none is listed. */
  runnerUp: number;
  /** Chain path of the best runner-up, or null. */
  runnerUpPath: string | null;
  /** The two best runners-up, best first, each with its points over the chosen tag's (as runnerUp). */
  runnersUp: Array<{ path: string; ratio: number }>;
}

const WORD_FACTORS = new Set(['name', 'table', 'context', 'comment', 'values', 'confirmed_fields']);

/**
 * Reads what the classifier's answer rested on from its evidence (JSON array of {factor, score, detail, for?}; items
 * with `for` speak for a runner-up). Null when the text is absent or not such an array.
 */
export function classifierSupport(evidenceJson: string | null | undefined): ClassifierSupport | null {
  if (!evidenceJson) return null;
  let items: unknown;
  try {
    items = JSON.parse(evidenceJson);
  } catch {
    return null;
  }
  if (!Array.isArray(items)) return null;
  let words = 0;
  let total = 0;
  const runners = new Map<string, number>();
  for (const item of items as Array<{ factor?: unknown; score?: unknown; for?: unknown }>) {
    const score = typeof item.score === 'number' && Number.isFinite(item.score) ? item.score : 0;
    if (score <= 0) continue;
    if (typeof item.for === 'string') runners.set(item.for, (runners.get(item.for) ?? 0) + score);
    else {
      total += score;
      if (typeof item.factor === 'string' && WORD_FACTORS.has(item.factor)) words += score;
    }
  }
  const ratio = (score: number): number => (total > 0 ? clamp(score / total, 0, 1) : 1);
  // Best first; ties in listed order (a Map keeps it, and the sort is stable).
  const runnersUp = [...runners]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([path, score]) => ({ path, ratio: ratio(score) }));
  const first = runnersUp[0];
  return { words, runnerUp: first ? first.ratio : 0, runnerUpPath: first ? first.path : null, runnersUp };
}

// ---------------------------------------------------------------- what reviewers said nearby

export interface ReviewedEvidence {
  /** Similarity-weighted count of confirmed nearest fields with another classification (tag, or level), in [0, k]. */
  confirmedOther: number;
  /** … and with the same classification. */
  confirmedAgrees: number;
  /**
   * A confirmed field with the same embedding (a twin: the same column in another table, shard or source) and
   * another classification — the reviewer's correction of one applies to the others — or null.
   */
  twin: { tagId: number; level: string } | null;
  /**
   * For a self-classified field: reviewers' most common correction of the classifier's same answer on the confirmed
   * fields of its naming pattern (same data source, same first word of the name), with its share of those reviewed
   * (kept ones count against it); null when none was corrected. Absent = none.
   */
  pattern?: { tagId: number; level: string; share: number; count: number } | null;
}

/**
 * What reviewers decided about the fields nearest to this one: confirmed neighbours that disagree or agree with its
 * classification, and a confirmed twin with another classification (the most common one among its confirmed twins,
 * ties to the higher level). Independent of the classifier's answer; a correction teaches it at once.
 */
export function reviewedEvidence(
  neighbours: readonly Neighbour[],
  self: { tag_id: number; level: string },
  confirmedTwins: ReadonlyArray<{ tag_id: number; level: string }>,
  rank: LevelRank,
  patternReviews: ReviewedAnswers | null = null,
): ReviewedEvidence {
  let confirmedOther = 0;
  let confirmedAgrees = 0;
  for (const n of neighbours) {
    if (!n.confirmed || !Number.isFinite(n.similarity)) continue;
    const w = Math.max(0, n.similarity);
    if (n.tag_id === self.tag_id && n.level === self.level) confirmedAgrees += w;
    else confirmedOther += w;
  }
  const votes = new Map<string, { tagId: number; level: string; n: number }>();
  for (const t of confirmedTwins) {
    if (t.tag_id === self.tag_id && t.level === self.level) continue;
    const key = `${t.tag_id}/${t.level}`;
    const v = votes.get(key) ?? { tagId: t.tag_id, level: t.level, n: 0 };
    v.n++;
    votes.set(key, v);
  }
  const agreeing = confirmedTwins.filter((t) => t.tag_id === self.tag_id && t.level === self.level).length;
  let twin: ReviewedEvidence['twin'] = null;
  let best = agreeing;
  for (const v of votes.values()) {
    if (v.n > best || (twin !== null && v.n === best && rank(v.level) > rank(twin.level))) {
      best = v.n;
      twin = { tagId: v.tagId, level: v.level };
    }
  }
  const top = patternReviews?.top;
  const pattern =
    patternReviews && top && (top.tagId !== self.tag_id || top.level !== self.level)
      ? {
          tagId: top.tagId,
          level: top.level,
          share: clamp(top.count / Math.max(1, patternReviews.kept + patternReviews.corrected), 0, 1),
          count: top.count,
        }
      : null;
  return { confirmedOther, confirmedAgrees, twin, pattern };
}

/**
 * How reviewers treated one answer of the classifier on the confirmed fields that got it (of a tag, or of a naming
 * pattern: CatalogState.answerReviews, patternReviews): kept as answered, corrected, and the most common correction.
 */
export interface ReviewedAnswers {
  kept: number;
  corrected: number;
  top: { tagId: number; level: string; count: number } | null;
}

export interface FieldMeasurement {
  axes: AxesResult;
  margins: TagMargins;
  disagreement: number;
  nearestRatio: number | null;
}

/** Mean cosine between two distinct members of a group from the sum of their unit vectors: (|S|² − n) / (n(n − 1)); null below two. */
export function groupCohesion(sum: Float32Array | null | undefined, count: number): number | null {
  if (!sum || count < 2) return null;
  return clamp((dot(sum, sum) - count) / (count * (count - 1)), -1, 1);
}

/** The six raw axes, the tag margins, neighbour disagreement and the nearest-field ratio of one field. */
export function measureField(n: FieldNeighbourhood): FieldMeasurement {
  const nearest = n.neighbours[0];
  const axes = computeAxes({ ...n, nearest: nearest ? { similarity: nearest.similarity } : null });
  const margins = computeTagMargins(n.embedding, n.tagId, n.tagStats);
  const disagreement = neighbourDisagreement(
    n.neighbours,
    { tag_id: n.tagId, level: n.level },
    (n.tagCount ?? Infinity) - 1,
  );
  const nearestRatio = nearestTagEvidence(n.neighbours, { tag_id: n.tagId }, axes.nearest_peer_similarity).ratio;
  return { axes, margins, disagreement, nearestRatio };
}
