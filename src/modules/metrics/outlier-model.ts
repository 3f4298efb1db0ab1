// The outlier model: how the measured signals combine into an outlier score in [0, 1], and its severity.
// docs/metrics.md ("Outlier model") explains the weights; bench/quality/fit.ts fits them.
import type { AxisScores } from './axes.js';
import { DEFAULT_MARGIN_SCALE, type ClassificationEvidence, type ReviewedEvidence } from './measure-field.js';
import { clamp, finiteOr } from './vectors.js';

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
  /** classificationEvidence(): the classifier's view and the level evidence; absent = none. */
  evidence?: ClassificationEvidence | null;
  /** A confirmed field whose neighbourhood has not changed since its confirmation. */
  confirmedUnchanged?: boolean;
  /** reviewedEvidence(): confirmed neighbours and twins; absent = none. */
  reviewed?: ReviewedEvidence | null;
}

/**
 * Fixed logistic weights (docs/metrics.md, "Outlier model"), rounded. The terms up to labelGap are fitted by
 * `bench/quality/fit-public.ts` on the public schemas' development half (seeded random, sibling and systematic errors)
 * pooled with the generated catalog's tuning seeds (all five modes; the only set whose correct fields carry legitimate
 * level overrides); the public held-out half is never fitted on (before 2026-11-27 they were fitted by fit.ts on the
 * generated catalog alone; refitted with labelGap the same day, which took over most of classifierOther's weight).
 * Margins enter as z = margin / scale clipped to [−4, 4]; the nearest-field ratio is clipped to [−3, 3]; the label gap
 * to [0, 10] classifier points; disagreement and the axis scores are already in [0, 1].
 */
export const OUTLIER_WEIGHTS = {
  intercept: -5.65,
  /** per unit of neighbour disagreement in [0, 1] */
  disagreement: 1.65,
  /** per robust-scale unit of peer margin (negative margin → more suspicious) */
  peerMargin: 0.1,
  /** per robust-scale unit of anchor margin */
  anchorMargin: 0.85,
  /** per unit of the nearest-field log distance ratio (positive → another tag's field is closer → more suspicious) */
  nearestRatio: 0.8,
  /** per unit of (0.5 − mean of the peer_mean and category_anchor scores) */
  axisFit: 0.7,
  /** per unit of classifier confidence when it names another tag */
  classifierOther: 0.2,
  /** … and when that tag is in another top-level group */
  classifierFar: 0.2,
  /** per unit of classifier confidence when it names the field's own tag (negative: agreement is evidence for) */
  classifierAgrees: -5.0,
  /** per level step below the level the evidence expects (under-classified) */
  under: 1.25,
  /** per level step above it (over-classified) */
  over: 1.75,
  /** per level step below / above the classifier's level for the same tag, times its confidence */
  underClassifier: 4.1,
  overClassifier: 5.45,
  /** per unit of classifier confidence naming another tag, for a field alone in its tag */
  classifierOtherAlone: 5.05,
  /** per classifier point by which the label's own tag trails the classifier's answer (clipped at gapClip) */
  labelGap: 0.65,
  // A field the classifier classified itself (docs/metrics.md, "Self-classified fields"): its agreement with itself says
  // nothing, so its own doubt and the evidence independent of its answer weigh instead. Fitted by
  // bench/quality/fit-self.ts on the development half of the public schemas, on top of the terms above (refitted
  // against classifier 1.5.0's recalibrated confidences, 2026-11-26; the self* terms again against 1.5.5's, and again
  // on top of the terms above once fit-public.ts had refitted them, 2026-11-27: classifierAgrees now carries most of
  // the classifier's own doubt, so selfDoubt fell to 0.25, and to −0.2 once labelGap joined — the reviewed-evidence terms below were left as they were:
  // the development half holds 17 twins, too few to refit them).
  /** log-odds added to every self-classified field */
  selfBias: 6.9,
  /** per unit of the classifier's doubt (1 − confidence) in its own answer */
  selfDoubt: -0.2,
  /** per unit of neighbour disagreement, for a self-classified field (on top of `disagreement`) */
  selfDisagreement: -0.45,
  /** per unit of the nearest-field ratio, for a self-classified field (on top of `nearestRatio`) */
  selfNearestRatio: -0.6,
  /** per robust-scale unit of peer margin, for a self-classified field */
  selfPeerMargin: -0.15,
  /** per robust-scale unit of anchor margin, for a self-classified field */
  selfAnchorMargin: -1.1,
  /** per unit of 1 − the tag's cohesion, for a self-classified field */
  selfLooseTag: 1.05,
  /** per similarity-weighted confirmed neighbour with another classification (capped at confirmedClip) */
  confirmedOther: 0.35,
  /** per similarity-weighted confirmed neighbour with the same classification (capped) */
  confirmedAgrees: -1.15,
  /** a confirmed twin (same embedding) with another classification */
  twinOther: 6.45,
  /** per unit of the share of a self-classified field's naming pattern whose same answer reviewers corrected */
  patternOther: 0.9,
  /** confirmed-neighbour counts are capped here */
  confirmedClip: 3,
  /** log-odds taken off a confirmed field whose neighbourhood has not changed since its confirmation */
  confirmedUnchanged: 8,
  /** margins are clipped to ±marginClip scale units so one extreme signal cannot dominate */
  marginClip: 4,
  /** the nearest-field ratio is clipped to ±ratioClip (e³ ≈ 20 times closer) */
  ratioClip: 3,
  /** the label gap is clipped to gapClip classifier points (one name match is worth 2.5–4.5: docs/classifier.md) */
  gapClip: 10,
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
  classifierOther: number;
  classifierFar: number;
  classifierAgrees: number;
  under: number;
  over: number;
  underClassifier: number;
  overClassifier: number;
  classifierOtherAlone: number;
  labelGap: number;
  selfBias: number;
  selfDoubt: number;
  selfDisagreement: number;
  selfNearestRatio: number;
  selfPeerMargin: number;
  selfAnchorMargin: number;
  selfLooseTag: number;
  confirmedOther: number;
  confirmedAgrees: number;
  twinOther: number;
  patternOther: number;
}

/** The fitted signals, in the order bench/quality/fit.ts fits them. */
export const OUTLIER_FEATURES = [
  'disagreement',
  'peerMargin',
  'anchorMargin',
  'nearestRatio',
  'axisFit',
  'classifierOther',
  'classifierFar',
  'classifierAgrees',
  'under',
  'over',
  'underClassifier',
  'overClassifier',
  'classifierOtherAlone',
  'labelGap',
  'selfBias',
  'selfDoubt',
  'selfDisagreement',
  'selfNearestRatio',
  'selfPeerMargin',
  'selfAnchorMargin',
  'selfLooseTag',
  'confirmedOther',
  'confirmedAgrees',
  'twinOther',
  'patternOther',
] as const satisfies ReadonlyArray<keyof OutlierTerms>;

/**
 * The signals before weighting, clipped and defaulted as the model reads them (what bench/quality fits the weights
 * on); the sign is that of the contribution: margins enter negated (a negative margin is suspicious).
 */
export function outlierSignals(input: OutlierInput): OutlierTerms {
  const w = OUTLIER_WEIGHTS;
  const z = (m: number | null | undefined, scale: number | undefined): number => {
    if (m === null || m === undefined || !Number.isFinite(m)) return 0;
    const s = scale !== undefined && Number.isFinite(scale) && scale > 0 ? scale : DEFAULT_MARGIN_SCALE;
    return clamp(m / s, -w.marginClip, w.marginClip);
  };
  const d = clamp(finiteOr(input.neighbourDisagreement, 0), 0, 1);
  const ratio = clamp(finiteOr(input.nearestRatio ?? 0, 0), -w.ratioClip, w.ratioClip);
  const fit = (finiteOr(input.scores.peer_mean, 0.5) + finiteOr(input.scores.category_anchor, 0.5)) / 2;
  const e = input.evidence;
  const v = (x: number | undefined): number => clamp(finiteOr(x ?? 0, 0), 0, 4);
  const self = e?.selfClassified === true ? 1 : 0;
  const peer = -z(input.peerMargin, input.scales?.peer);
  const anchor = -z(input.anchorMargin, input.scales?.anchor);
  const r = input.reviewed;
  const c = (x: number | undefined): number => clamp(finiteOr(x ?? 0, 0), 0, w.confirmedClip);
  return {
    disagreement: d,
    peerMargin: peer,
    anchorMargin: anchor,
    nearestRatio: ratio,
    axisFit: 0.5 - clamp(fit, 0, 1),
    classifierOther: v(e?.classifierOther),
    classifierFar: v(e?.classifierFar),
    classifierAgrees: v(e?.classifierAgrees),
    under: v(e?.under),
    over: v(e?.over),
    underClassifier: v(e?.underClassifier),
    overClassifier: v(e?.overClassifier),
    classifierOtherAlone: v(e?.classifierOtherAlone),
    labelGap: clamp(finiteOr(e?.labelGap ?? 0, 0), 0, w.gapClip),
    selfBias: self,
    selfDoubt: self * clamp(finiteOr(e?.selfDoubt ?? 0, 0), 0, 1),
    selfDisagreement: self * d,
    selfNearestRatio: self * ratio,
    selfPeerMargin: self * peer,
    selfAnchorMargin: self * anchor,
    selfLooseTag: self * clamp(finiteOr(e?.selfLooseTag ?? 0, 0), 0, 2),
    confirmedOther: c(r?.confirmedOther),
    confirmedAgrees: c(r?.confirmedAgrees),
    twinOther: r?.twin ? 1 : 0,
    patternOther: r?.pattern ? clamp(finiteOr(r.pattern.share, 0), 0, 1) : 0,
  };
}

/** The additive contributions (log-odds) of each signal; the largest positive one is the strongest evidence. */
export function outlierTerms(input: OutlierInput): OutlierTerms {
  const x = outlierSignals(input);
  const out = {} as OutlierTerms;
  for (const f of OUTLIER_FEATURES) out[f] = OUTLIER_WEIGHTS[f] * x[f];
  return out;
}

/**
 * Outlier score in [0, 1], higher = more likely misclassified: a logistic combination of neighbour
 * disagreement, the own-vs-best-other-tag margins (members and anchor), the nearest own-tag vs. other-tag field
 * distance ratio and the axis percentiles.
 */
export function outlierScore(input: OutlierInput): number {
  const t = outlierTerms(input);
  let zsum = OUTLIER_WEIGHTS.intercept;
  for (const f of OUTLIER_FEATURES) zsum += t[f];
  if (input.confirmedUnchanged) zsum -= OUTLIER_WEIGHTS.confirmedUnchanged;
  return clamp(finiteOr(sigmoid(zsum), 0), 0, 1);
}

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
