// The six bars a reviewer reads (issue 25): for each axis, how well the field fits its CURRENT classification on that
// signal, in [0, 1], high = fits, low = does not. A catalog percentile cannot say that (a right field's percentile sits
// near 0.5 by construction, and a level error moves none of them), so each axis is calibrated against two samples
// of the same measurement: fields that carry the classification (its tag; its level for `centroid`; for
// `category_anchor`, the fields of every anchored tag against their own anchors) and fields that do not, each measured
// as if they did. No I/O: the worker builds the samples from its in-memory catalog.
import { AXIS_KEYS, computeAxes, type AxisKey, type AxisScores, type RawAxes } from './axes.js';
import { neighbourDisagreement, weightOf, type Neighbour } from './measure-field.js';
import { addInto, norm } from './vectors.js';

/** The axes calibrated against a tag's fields (`centroid` is calibrated by level, `nearest` by its neighbours). */
export const TAG_AXES = [
  'category_anchor',
  'peer_mean',
  'lower_quartile',
  'farthest',
] as const satisfies readonly AxisKey[];
type TagAxis = (typeof TAG_AXES)[number];

/** Members and non-members measured per tag and per level (each way): ~2 ms a tag at 256 peers and 100 dimensions. */
export const FIT_SAMPLE = 64;
/** Below this many members a tag's (or level's) own sample is too thin: the pooled one of every tag stands in. */
export const FIT_MIN_MEMBERS = 4;
/** A bar with no evidence either way (nothing to compare with). */
export const NO_EVIDENCE_FIT = 0.5;

/** Two sorted samples of one raw axis (a cosine distance, lower = closer): members' values and non-members'. */
export interface FitSample {
  members: Float64Array;
  others: Float64Array;
}

/**
 * The fit score of a raw distance `x` against a sample, in (0, 1):
 *   A = share of the members at least as far as x      (low: farther than the fields that carry the label)
 *   B = share of the non-members at least as close as x (high: as close as fields that do not carry it)
 *   fit = A / (A + B)
 * with half a count added to each share so that neither is ever 0. A field as close as a typical member and closer
 * than nearly every non-member scores near 1; one that sits among the non-members scores near 0; where the two
 * samples overlap, near 0.5. It is the probability of "member" with equal priors when each sample is summarised by its
 * tail beyond x, so it reads the same for a tight tag and a loose one and for any catalog size. Monotone: a larger
 * distance never fits better.
 */
export function fitScore(x: number, sample: FitSample): number {
  const m = sample.members;
  const o = sample.others;
  if (m.length === 0 || o.length === 0 || !Number.isFinite(x)) return NO_EVIDENCE_FIT;
  const a = (m.length - lowerBound(m, x) + 0.5) / (m.length + 1);
  const b = (upperBound(o, x) + 0.5) / (o.length + 1);
  return a / (a + b);
}

/** First index whose value is ≥ x (values sorted ascending). */
function lowerBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose value is > x (values sorted ascending). */
function upperBound(values: Float64Array, x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const sorted = (values: readonly number[]): Float64Array => Float64Array.from(values).sort();

/** What the calibration reads of the catalog (the worker's in-memory replica). */
export interface FitSource {
  /** Unit embedding of a slot. */
  embedding(slot: number): Float32Array;
  tags: ReadonlyArray<{
    tagId: number;
    /** Unit anchor, or null. */
    anchor: Float32Array | null;
    /** Up to FIT_SAMPLE members, and the peers each is compared with (never itself). */
    members: readonly number[];
    peersOf(slot: number): readonly Float32Array[];
    /** The tag's peer sample (what a non-member is compared with). */
    peers: readonly Float32Array[];
    /** Up to FIT_SAMPLE fields of other tags. */
    others: readonly number[];
  }>;
  levels: ReadonlyArray<{
    level: string;
    sum: Float32Array;
    count: number;
    members: readonly number[];
    others: readonly number[];
  }>;
}

export interface FitCalibration {
  /**
   * Per tag its four samples. For a tag with an anchor, `category_anchor` takes its members from `anchorMembers` (see
   * buildFitCalibration) and keeps its own non-members; a tag without one keeps its own sample (its axis is the peer mean).
   */
  tags: Map<number, Record<TagAxis, FitSample>>;
  /**
   * The members' distance to their own tag's anchor, pooled over every tag with an anchor (sorted); null when no tag
   * has one.
   */
  anchorMembers: Float64Array | null;
  levels: Map<string, FitSample>;
  /** Every tag's (level's) samples together: the stand-in for a tag (level) with fewer than FIT_MIN_MEMBERS members. */
  pooledTag: Record<TagAxis, FitSample>;
  pooledLevel: FitSample;
}

const withMember = (sum: Float32Array, e: Float32Array): Float32Array => {
  const out = Float32Array.from(sum);
  addInto(out, e);
  return out;
};

/**
 * Measures the samples: a member as it is measured for itself (computeAxes with its own tag's anchor and peers), a
 * non-member as if it carried the tag (compared with the tag's peer sample).
 * `pause` is awaited between tags so a large taxonomy does not hold the event loop.
 */
export async function buildFitCalibration(
  source: FitSource,
  pause: () => Promise<void> = async () => undefined,
): Promise<FitCalibration> {
  const tags = new Map<number, Record<TagAxis, FitSample>>();
  const pooled = Object.fromEntries(
    TAG_AXES.map((k) => [k, { members: [] as number[], others: [] as number[] }]),
  ) as Record<TagAxis, { members: number[]; others: number[] }>;
  const anchored = { members: [] as number[] };
  const hasAnchor = new Set<number>();
  for (const tag of source.tags) {
    const withAnchor = tag.anchor !== null && norm(tag.anchor) > 0;
    if (withAnchor) hasAnchor.add(tag.tagId);
    const values = Object.fromEntries(
      TAG_AXES.map((k) => [k, { members: [] as number[], others: [] as number[] }]),
    ) as Record<TagAxis, { members: number[]; others: number[] }>;
    const measure = (raw: RawAxes, side: 'members' | 'others'): void => {
      for (const k of TAG_AXES) {
        values[k][side].push(raw[k]);
        pooled[k][side].push(raw[k]);
      }
      if (withAnchor && side === 'members') anchored.members.push(raw.category_anchor);
    };
    for (const slot of tag.members) {
      const embedding = source.embedding(slot);
      measure(
        computeAxes({
          embedding,
          anchor: tag.anchor,
          levelSum: null,
          levelCount: 0,
          peerSample: tag.peersOf(slot),
          nearest: null,
        }).raw,
        'members',
      );
    }
    for (const slot of tag.others) {
      const embedding = source.embedding(slot);
      measure(
        computeAxes({
          embedding,
          anchor: tag.anchor,
          levelSum: null,
          levelCount: 0,
          peerSample: tag.peers,
          nearest: null,
        }).raw,
        'others',
      );
    }
    if (tag.members.length >= FIT_MIN_MEMBERS) {
      tags.set(
        tag.tagId,
        Object.fromEntries(
          TAG_AXES.map((k) => [k, { members: sorted(values[k].members), others: sorted(values[k].others) }]),
        ) as Record<TagAxis, FitSample>,
      );
    } else if (tag.others.length > 0) {
      // Too few members of its own: the pooled members, against this tag's own non-members.
      tags.set(
        tag.tagId,
        Object.fromEntries(
          TAG_AXES.map((k) => [k, { members: new Float64Array(0), others: sorted(values[k].others) }]),
        ) as Record<TagAxis, FitSample>,
      );
    }
    await pause();
  }
  const pooledTag = Object.fromEntries(
    TAG_AXES.map((k) => [k, { members: sorted(pooled[k].members), others: sorted(pooled[k].others) }]),
  ) as Record<TagAxis, FitSample>;
  for (const sample of tags.values())
    for (const k of TAG_AXES)
      if (sample[k].members.length === 0) sample[k] = { members: pooledTag[k].members, others: sample[k].others };
  // The anchor bar's members are those of every anchored tag: how far a field usually sits from its own tag's anchor.
  // The peer bars measure the field against the tag's members, so their scale is the tag's own; the anchor is the one
  // reference that does not move with them (the tag's name, path, description and keywords, later its confirmed
  // fields). Calibrated on the tag's own members, the bar learns where the tag's fields sit now, wrong ones included:
  // where many fields were given one wrong tag (a data source imported under one wrong category) the member sample
  // moves to them and the bar forgives them. The non-members stay the tag's own: how near its anchor the fields of
  // other tags come says how specific the anchor is (everything sits near "Status flag"), and the tag's own mistakes
  // do not move them.
  const anchorMembers = anchored.members.length > 0 ? sorted(anchored.members) : null;
  if (anchorMembers)
    for (const [tagId, sample] of tags)
      if (hasAnchor.has(tagId) && sample.category_anchor.others.length > 0)
        sample.category_anchor = { members: anchorMembers, others: sample.category_anchor.others };

  const levels = new Map<string, FitSample>();
  const pooledLevel = { members: [] as number[], others: [] as number[] };
  const centroidDistance = (embedding: Float32Array, sum: Float32Array, count: number): number =>
    computeAxes({ embedding, anchor: null, levelSum: sum, levelCount: count, peerSample: [], nearest: null }).raw
      .centroid;
  for (const level of source.levels) {
    const members = level.members.map((slot) => centroidDistance(source.embedding(slot), level.sum, level.count));
    const others = level.others.map((slot) => {
      const e = source.embedding(slot);
      return centroidDistance(e, withMember(level.sum, e), level.count + 1);
    });
    pooledLevel.members.push(...members);
    pooledLevel.others.push(...others);
    levels.set(level.level, {
      members: sorted(level.members.length >= FIT_MIN_MEMBERS ? members : []),
      others: sorted(others),
    });
  }
  const pooledLevelSample = { members: sorted(pooledLevel.members), others: sorted(pooledLevel.others) };
  for (const [level, sample] of levels)
    if (sample.members.length === 0) levels.set(level, { members: pooledLevelSample.members, others: sample.others });
  return { tags, anchorMembers, levels, pooledTag, pooledLevel: pooledLevelSample };
}

/**
 * The six bars of one field. `nearest` is not a distance here: it is the similarity-weighted share of the field's
 * nearest classified fields that agree with its classification (another tag disagrees, the same tag at another level
 * half; confirmed neighbours weigh double; a small tag's unavoidable strangers are not held against it), so a field
 * whose closest fields all carry another label sits low however close they are.
 */
export function fitScores(
  raw: RawAxes,
  self: { tagId: number; level: string },
  neighbours: readonly Neighbour[],
  otherMembers: number,
  calibration: FitCalibration | null,
  rank?: (level: string) => number,
  levelFit = 1,
): { scores: AxisScores; fallbacks: AxisKey[] } {
  const fallbacks: AxisKey[] = [];
  const tag = calibration?.tags.get(self.tagId) ?? calibration?.pooledTag ?? null;
  const level = calibration?.levels.get(self.level) ?? calibration?.pooledLevel ?? null;
  const scores = {} as AxisScores;
  for (const k of AXIS_KEYS) {
    if (k === 'nearest') continue;
    const sample = k === 'centroid' ? level : (tag?.[k as TagAxis] ?? null);
    if (!sample || sample.members.length === 0 || sample.others.length === 0) {
      fallbacks.push(k);
      scores[k] = NO_EVIDENCE_FIT;
    } else scores[k] = fitScore(raw[k], sample);
    if (k !== 'centroid') scores[k] *= levelFit;
  }
  // The level bar: the catalog-wide level centroids barely separate levels (every level holds every kind of field),
  // so where the field has neighbours it is the centroid of its neighbourhood's levels — whether the fields most
  // like it sit at its level (one step away counts half, two or more nothing).
  const local = rank ? levelAgreement(neighbours, self.level, rank) : null;
  if (local !== null) {
    scores.centroid = local;
    const i = fallbacks.indexOf('centroid');
    if (i >= 0) fallbacks.splice(i, 1);
  }
  if (neighbours.length === 0 || otherMembers <= 0) {
    fallbacks.push('nearest');
    scores.nearest = NO_EVIDENCE_FIT;
  } else {
    scores.nearest = 1 - neighbourDisagreement(neighbours, { tag_id: self.tagId, level: self.level }, otherMembers);
  }
  return { scores, fallbacks };
}

/**
 * Similarity-weighted share of the neighbours at the field's level: 1 at the same level, 0.5 one step away, 0 two or
 * more; each neighbour weighs as in the disagreement (weightOf). Null without neighbours of positive similarity or with an unranked level.
 */
export function levelAgreement(
  neighbours: readonly Neighbour[],
  level: string,
  rank: (level: string) => number,
): number | null {
  const own = rank(level);
  if (own < 0) return null;
  let w = 0;
  let agree = 0;
  for (const n of neighbours) {
    const weight = weightOf(n);
    const r = rank(n.level);
    if (weight <= 0 || r < 0) continue;
    w += weight;
    agree += weight * Math.max(0, 1 - Math.abs(r - own) / 2);
  }
  return w > 0 ? agree / w : null;
}

/** Pseudo-count added to each level's count of a tag: a level that one other field of the tag holds is not yet rare. */
export const LEVEL_PRIOR = 2;

/** How usual a field's level is among the fields of its tag (levelFit). */
export interface TagLevelFit {
  /** In (0, 1]: 1 at (or one step from) the tag's most common level, or at a level a reviewer confirmed for the tag. */
  fit: number;
  /** The tag's other fields at the field's level, and all of them. */
  atLevel: number;
  of: number;
  /** The tag's most common level among its other fields (the field's own when its level is usual). */
  usual: string;
}

/**
 * How usual the field's level is for its tag: the tag's other fields at its level or one step from it (`rank` gives
 * the order; without it, at its level only) against those at the tag's most common level, LEVEL_PRIOR added to each.
 * A level a reviewer confirmed for the tag (on this field or another) is usual by decision: 1. The four tag bars are
 * the fit to the classification, tag and level: the tag's calibrated fit (equal priors) times this relative prior of
 * the level within the tag, so a field that fits its tag closely but sits two or more steps from where the tag's
 * fields are does not fit its classification (the level errors the bars could not show). One step counts as usual: an
 * organisation's L3 tag with a few L4 fields is a policy, and the bars of those fields stay as they are (counting only
 * the same level cost the generated catalog's random and sibling modes 1.8 and 2.8 points of mean-of-six AUROC through
 * such fields; one step, 0.2 and 0.7, for the same gain on level errors).
 */
export function levelFit(
  tagLevels: ReadonlyArray<{ level: string; count: number; confirmed: number }>,
  level: string,
  selfConfirmed: boolean,
  rank?: (level: string) => number,
): TagLevelFit {
  let own = 0;
  let of = 0;
  let most = -1;
  let usual = level;
  let confirmedHere = selfConfirmed;
  let near = 0;
  const r = rank ? rank(level) : -1;
  for (const l of tagLevels) {
    const self = l.level === level;
    const others = self ? l.count - 1 : l.count;
    of += others;
    if (self) {
      own = others;
      if (l.confirmed - (selfConfirmed ? 1 : 0) > 0) confirmedHere = true;
    } else if (r >= 0 && rank && Math.abs(rank(l.level) - r) === 1) near += others;
    if (others > most || (others === most && self)) {
      most = others;
      usual = l.level;
    }
  }
  const support = own + near;
  const fit = confirmedHere || most <= support ? 1 : (support + LEVEL_PRIOR) / (most + LEVEL_PRIOR);
  return { fit, atLevel: own, of, usual: fit === 1 ? level : usual };
}
