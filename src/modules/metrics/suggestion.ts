// What a reviewer is offered besides the score: the classification that fits the field better than its current one
// (or none), and the field's place in the review order (`sort=risk`). Pure functions; docs/metrics.md explains them.
import {
  CONFIRMED_WEIGHT,
  type ClassificationEvidence,
  type LevelRank,
  type Neighbour,
  type TagMargins,
} from './measure-field.js';
import type { Severity } from './outlier-model.js';

export interface Suggestion {
  tagId: number;
  level: string;
  /** The calibrated probability that a reviewer accepts the suggestion (suggestionConfidence). */
  confidence: number;
  /** The suggestion's share of the support against the current tag's (1 for a twin's decision and a level suggestion). */
  share: number;
  /**
   * What chose the tag: the classifier's view, the neighbours, (same tag) the level evidence, a reviewer's decision
   * on a twin (same embedding), the reviewers' corrections of the classifier's earlier answers of this tag, or their
   * corrections of its same answer on the fields of the field's naming pattern (same data source, same first word).
   */
  by: 'classifier' | 'neighbours' | 'margins' | 'level' | 'twin' | 'corrections' | 'pattern';
}

export interface SuggestionInput {
  tagId: number;
  level: string;
  neighbours: readonly Neighbour[];
  predicted: { tagId: number; level: string; confidence: number } | null;
  margins: TagMargins;
  evidence: ClassificationEvidence;
  outlierScore: number;
  /** Below this score the current classification is taken as the best: no suggestion. */
  threshold: number;
  /** The usual level of a tag's fields (its most common level, else its default). */
  usualLevel: (tagId: number) => string | null;
  rank: LevelRank;
  /** A confirmed twin's other classification (reviewedEvidence().twin): suggested as it is. */
  twin?: { tagId: number; level: string } | null;
  /**
   * For a self-classified field: the reviewers' most common correction of the classifier's same answer in its naming
   * pattern, with its share of the reviewed fields there (ReviewedEvidence.pattern); suggested when that share is at
   * least PATTERN_SHARE.
   */
  pattern?: { tagId: number; level: string; share: number } | null;
  /**
   * For a field the classifier classified itself: its runner-up tag, and what reviewers most often corrected its
   * answers of this tag to (with the share of the reviewed answers so corrected).
   */
  runnerUpTagId?: number | null;
  /**
   * A self-classified field's runners-up as its evidence lists them, best first (at most two), each with its points
   * over the answer's (classifierSupport). When given, the first one stands for runnerUpTagId.
   */
  runnersUp?: ReadonlyArray<{ tagId: number; ratio: number }>;
  corrections?: { tagId: number; level: string; share: number } | null;
  /** Top-level group of a tag (a self-classified field's candidates of its own group are likelier its mix-ups). */
  groupOf?: (tagId: number) => string;
  /** The share of the catalog's fields carrying a tag (how common a classification is). */
  tagShare?: (tagId: number) => number;
}

/** A naming pattern's correction is suggested when at least this share of its reviewed fields were so corrected. */
export const PATTERN_SHARE = 0.5;

/**
 * Another classification for the field, or null. A confirmed twin's decision first, then the correction reviewers made
 * most often of the classifier's same answer in the field's naming pattern (at least PATTERN_SHARE of them; offered
 * below the score threshold too); for a self-classified field,
 * selfSuggestion (the level the evidence expects, else the likeliest candidate of the fitted choice); otherwise the
 * best-supported other classification, or null when the current one is best. Support for a tag: the similarity-
 * weighted share of the nearest fields carrying it (confirmed ones count double), the classifier's confidence when it
 * names it, and ½ for the tag whose fields or anchor fit better (a negative margin). The current tag gets the same
 * (its margins count for it when non-negative). When the current tag is best but its level is not what the evidence
 * expects, the suggestion is the same tag at the expected level.
 */
export function suggestClassification(x: SuggestionInput): Suggestion | null {
  // Reviewers corrected the classifier's same answer on fields named like it in its data source: their correction,
  // whatever the score (a reviewer's decision the score weighs only a little: its confidence says how often it holds).
  const pattern = x.pattern && x.pattern.share >= PATTERN_SHARE ? x.pattern : null;
  if (!(x.outlierScore >= x.threshold) && !pattern) return null;
  // A reviewer decided its twin (the same column elsewhere) otherwise: that decision is the suggestion.
  if (x.twin && (x.twin.tagId !== x.tagId || x.twin.level !== x.level))
    return withConfidence({ tagId: x.twin.tagId, level: x.twin.level, by: 'twin' }, x.outlierScore, 1);
  if (pattern)
    return withConfidence({ tagId: pattern.tagId, level: pattern.level, by: 'pattern' }, x.outlierScore, pattern.share);
  if (x.evidence.selfClassified === true) return selfSuggestion(x);
  const support = new Map<number, number>();
  const add = (tagId: number | null | undefined, w: number): void => {
    if (tagId === null || tagId === undefined || !(w > 0)) return;
    support.set(tagId, (support.get(tagId) ?? 0) + w);
  };
  let total = 0;
  for (const n of x.neighbours) total += Math.max(0, n.similarity) * (n.confirmed ? CONFIRMED_WEIGHT : 1);
  if (total > 0)
    for (const n of x.neighbours)
      add(n.tag_id, (Math.max(0, n.similarity) * (n.confirmed ? CONFIRMED_WEIGHT : 1)) / total);
  if (x.predicted) add(x.predicted.tagId, x.predicted.confidence);
  const m = x.margins;
  if (m.peerMargin !== null) add(m.peerMargin < 0 ? m.bestOtherPeerTagId : x.tagId, 0.5);
  if (m.anchorMargin !== null) add(m.anchorMargin < 0 ? m.bestOtherAnchorTagId : x.tagId, 0.5);
  const own = support.get(x.tagId) ?? 0;
  let best: number | null = null;
  let bestSupport = 0;
  for (const [tagId, s] of support) {
    if (tagId !== x.tagId && (s > bestSupport || (s === bestSupport && best !== null && tagId < best))) {
      best = tagId;
      bestSupport = s;
    }
  }
  if (best !== null && bestSupport > own) {
    const fromClassifier = x.predicted !== null && x.predicted.tagId === best;
    const level = fromClassifier ? (x.predicted as { level: string }).level : (x.usualLevel(best) ?? x.level);
    const by = fromClassifier
      ? 'classifier'
      : m.bestOtherPeerTagId === best || m.bestOtherAnchorTagId === best
        ? total > 0
          ? 'neighbours'
          : 'margins'
        : 'neighbours';
    return withConfidence({ tagId: best, level, by }, x.outlierScore, bestSupport / (bestSupport + own));
  }
  const expected = x.evidence.expectedLevel;
  if (expected !== null && expected !== x.level && (x.evidence.under > 0 || x.evidence.over > 0)) {
    return withConfidence({ tagId: x.tagId, level: expected, by: 'level' }, x.outlierScore, 1);
  }
  return null;
}

/** What speaks for one other tag of a self-classified field, each in [0, 1] (the terms of SUGGESTION_CHOICE). */
export const CHOICE_FEATURES = [
  'runnerUp',
  'runnerUpRatio',
  'runnerUp2',
  'nearestShare',
  'nearestBest',
  'confirmedShare',
  'peerOther',
  'peerBeats',
  'anchorOther',
  'anchorBeats',
  'corrections',
  'sameGroup',
  'common',
  'nearestMax',
] as const;
export type ChoiceFeature = (typeof CHOICE_FEATURES)[number];

export interface Candidate {
  tagId: number;
  level: string;
  by: Suggestion['by'];
  features: Record<ChoiceFeature, number>;
}

/**
 * Every other tag something speaks for, for a self-classified field: its runners-up, the tags of its nearest fields,
 * the tags whose fields or anchor fit it best, the reviewers' most common correction of its answer. Each at the level
 * that source gives it: the correction's, else the nearest fields' of that tag (similarity-weighted majority), else the
 * tag's usual level.
 */
export function suggestionCandidates(x: SuggestionInput): Candidate[] {
  const runners =
    x.runnersUp ??
    (x.runnerUpTagId !== null && x.runnerUpTagId !== undefined ? [{ tagId: x.runnerUpTagId, ratio: 0 }] : []);
  const byTag = new Map<number, { w: number; confirmed: number; max: number; levels: Map<string, number> }>();
  let total = 0;
  for (const n of x.neighbours) {
    const similarity = Math.max(0, Number.isFinite(n.similarity) ? n.similarity : 0);
    const w = similarity * (n.confirmed ? CONFIRMED_WEIGHT : 1);
    total += w;
    if (n.tag_id === x.tagId) continue;
    const e = byTag.get(n.tag_id) ?? { w: 0, confirmed: 0, max: 0, levels: new Map<string, number>() };
    e.w += w;
    e.max = Math.max(e.max, similarity);
    if (n.confirmed) e.confirmed += w;
    e.levels.set(n.level, (e.levels.get(n.level) ?? 0) + w);
    byTag.set(n.tag_id, e);
  }
  let nearestBest: number | null = null;
  let nearestBestW = 0;
  for (const [tagId, e] of byTag)
    if (e.w > nearestBestW || (e.w === nearestBestW && nearestBest !== null && tagId < nearestBest)) {
      nearestBest = tagId;
      nearestBestW = e.w;
    }
  const m = x.margins;
  const ids = new Set<number>();
  for (const r of runners.slice(0, 2)) ids.add(r.tagId);
  for (const tagId of byTag.keys()) ids.add(tagId);
  if (m.bestOtherPeerTagId !== null) ids.add(m.bestOtherPeerTagId);
  if (m.bestOtherAnchorTagId !== null) ids.add(m.bestOtherAnchorTagId);
  if (x.corrections) ids.add(x.corrections.tagId);
  ids.delete(x.tagId);
  const out: Candidate[] = [];
  for (const tagId of ids) {
    const e = byTag.get(tagId);
    const corrected = x.corrections?.tagId === tagId ? x.corrections : null;
    const features: Record<ChoiceFeature, number> = {
      runnerUp: runners[0]?.tagId === tagId ? 1 : 0,
      runnerUpRatio: runners[0]?.tagId === tagId ? Math.min(1, Math.max(0, runners[0].ratio)) : 0,
      runnerUp2: runners[1]?.tagId === tagId ? 1 : 0,
      nearestShare: e && total > 0 ? e.w / total : 0,
      nearestBest: nearestBest === tagId ? 1 : 0,
      confirmedShare: e && total > 0 ? e.confirmed / total : 0,
      peerOther: m.bestOtherPeerTagId === tagId ? 1 : 0,
      peerBeats: m.bestOtherPeerTagId === tagId && m.peerMargin !== null && m.peerMargin < 0 ? 1 : 0,
      anchorOther: m.bestOtherAnchorTagId === tagId ? 1 : 0,
      anchorBeats: m.bestOtherAnchorTagId === tagId && m.anchorMargin !== null && m.anchorMargin < 0 ? 1 : 0,
      corrections: corrected ? corrected.share : 0,
      sameGroup: x.groupOf && x.groupOf(tagId) === x.groupOf(x.tagId) ? 1 : 0,
      // 0 for a tag no field carries, 1 for one carried by a tenth of the catalog or more.
      common: x.tagShare ? Math.min(1, Math.max(0, Math.log10(1 + 1000 * x.tagShare(tagId)) / 2)) : 0,
      nearestMax: e ? Math.min(1, e.max) : 0,
    };
    const nearestLevel = e ? [...e.levels].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] : undefined;
    const level = corrected?.level ?? nearestLevel ?? x.usualLevel(tagId) ?? x.level;
    // What chose it, for the reason and the confidence: the classifier when it is its second choice, the reviewers'
    // corrections, the nearest fields carrying it, else the margins (the tag whose fields or anchor fit better).
    const by: Suggestion['by'] =
      features.runnerUp > 0
        ? 'classifier'
        : corrected
          ? 'corrections'
          : e
            ? 'neighbours'
            : features.runnerUp2 > 0
              ? 'classifier'
              : 'margins';
    out.push({ tagId, level, by, features });
  }
  return out;
}

/** The fitted log-odds that a candidate is the right classification of a self-classified field that is wrong. */
export function candidateLogit(c: Pick<Candidate, 'features'>): number {
  let z = SUGGESTION_CHOICE.intercept;
  for (const f of CHOICE_FEATURES) z += SUGGESTION_CHOICE[f] * c.features[f];
  return z;
}

/**
 * The weights of the choice among a self-classified field's candidates (candidateLogit), fitted by
 * bench/quality/fit-suggestion-choice.ts on the development half: which candidate of a wrong field is right.
 */
export const SUGGESTION_CHOICE: Record<ChoiceFeature | 'intercept', number> = {
  // Fitted 2026-11-27 on 5,012 candidates of 924 wrong development-half fields (755 right), rounded: the classifier's
  // runners-up and the reviewers' decisions nearby (confirmed neighbours, corrections) name the right tag most often;
  // the nearest fields' tag counts by its share and by how close its closest field is; the tag whose anchor fits
  // better is less often right than any other candidate.
  intercept: -3.15,
  runnerUp: 1.39,
  runnerUpRatio: 0.6,
  runnerUp2: 1.19,
  nearestShare: 0.38,
  nearestBest: 0.17,
  confirmedShare: 6.11,
  peerOther: 0.41,
  peerBeats: -0.4,
  anchorOther: -0.5,
  anchorBeats: -0.08,
  corrections: 1.33,
  sameGroup: -0.3,
  common: 0.6,
  nearestMax: 1.09,
};

/**
 * A self-classified field's suggestion (its twin's decision aside): the same tag at the level the evidence expects when
 * that differs from the classifier's (on the development half such a suggestion was right for 17 of the 20 wrong fields
 * it was made for; the tag of a wrong field is right more often than any other tag is), else its likeliest other tag
 * by the fitted choice (candidateLogit), its share of the support being that candidate's fitted probability.
 */
function selfSuggestion(x: SuggestionInput): Suggestion | null {
  const expected = x.evidence.expectedLevel;
  if (expected !== null && expected !== x.level && (x.evidence.under > 0 || x.evidence.over > 0))
    return withConfidence({ tagId: x.tagId, level: expected, by: 'level' }, x.outlierScore, 1);
  let best: Candidate | null = null;
  let bestZ = -Infinity;
  for (const c of suggestionCandidates(x)) {
    const z = candidateLogit(c);
    if (z > bestZ || (z === bestZ && best !== null && c.tagId < best.tagId)) {
      best = c;
      bestZ = z;
    }
  }
  if (best === null) return null;
  return withConfidence(
    { tagId: best.tagId, level: best.level, by: best.by },
    x.outlierScore,
    1 / (1 + Math.exp(-bestZ)),
  );
}

const round3 = (v: number): number => Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000;

/**
 * The suggestion's confidence is a logistic model of what a reviewer accepts: logit(p) = intercept[by] +
 * score × logit(outlier score) + share × (its share of the support). Fitted by bench/quality/fit-suggestion.ts on the
 * development half of the public schemas (the classifier's own answers, before and after a third of its mistakes is
 * corrected): `p` is the share of such suggestions whose tag the field's label accepts at a level within one step.
 * docs/metrics.md gives the held-out reliability per bucket.
 */
export const SUGGESTION_CALIBRATION: { score: number; share: number; intercept: Record<Suggestion['by'], number> } = {
  // Refitted 2026-11-27 on 2,516 development-half suggestions (rounded) after a self-classified field's suggestion
  // became the likeliest candidate of a fitted choice (its share: that candidate's fitted probability), with a ridge of 3
  // chosen by leaving one development schema out at a time (it shrinks the intercepts of the rare sources — twins,
  // levels, margins — towards the rest): the share carries most of it; a higher outlier score still does not make a
  // suggestion likelier right. The naming pattern's intercept joined on 2026-11-28, fitted alone with the rest as it
  // was (CALIBRATION_ONLY=pattern: 142 development suggestions after corrections, 44 % right).
  score: -0.09,
  share: 3.69,
  intercept: {
    classifier: -1.9,
    neighbours: -2.75,
    margins: -2.24,
    level: -2.06,
    twin: -1.51,
    corrections: -2.97,
    pattern: -3.84,
  },
};

const logit = (p: number): number => {
  const r = Math.min(0.999, Math.max(0.001, Number.isFinite(p) ? p : 0));
  return Math.log(r / (1 - r));
};

/** The calibrated probability that a suggestion from `by`, at this outlier score and share of the support, is right. */
export function suggestionConfidence(score: number, share: number, by: Suggestion['by']): number {
  const c = SUGGESTION_CALIBRATION;
  const z = c.intercept[by] + c.score * logit(score) + c.share * (Number.isFinite(share) ? share : 0);
  return round3(1 / (1 + Math.exp(-z)));
}

const withConfidence = (s: Omit<Suggestion, 'confidence' | 'share'>, score: number, share: number): Suggestion => ({
  ...s,
  share: round3(share),
  confidence: suggestionConfidence(score, share, s.by),
});

/**
 * The review-order key of `GET /fields?sort=risk` (descending): severity high first, then medium, then low; within
 * high and medium, under-classified fields (the suggestion's level is above the current one) before the others; then
 * the outlier score. Values: high 4–6, medium 2–4, low 0–1.
 */
export function riskOf(
  score: number,
  severity: Severity,
  level: string,
  suggestion: Pick<Suggestion, 'level'> | null,
  rank: LevelRank,
): number {
  const base = severity === 'high' ? 4 : severity === 'medium' ? 2 : 0;
  const under = base > 0 && suggestion !== null && rank(suggestion.level) > rank(level) ? 1 : 0;
  return base + under + Math.min(1, Math.max(0, Number.isFinite(score) ? score : 0));
}
