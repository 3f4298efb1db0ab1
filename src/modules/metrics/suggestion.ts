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
   * on a twin (same embedding), or the reviewers' corrections of the classifier's earlier answers of this tag.
   */
  by: 'classifier' | 'neighbours' | 'margins' | 'level' | 'twin' | 'corrections';
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
   * For a field the classifier classified itself: its runner-up tag, and what reviewers most often corrected its
   * answers of this tag to (with the share of the reviewed answers so corrected).
   */
  runnerUpTagId?: number | null;
  corrections?: { tagId: number; level: string; share: number } | null;
}

/** From this outlier score on, a self-classified field is offered its best-supported other tag whatever its own tag's support. */
export const SELF_ALTERNATIVE_FROM = 0.5;

/** Support of a self-classified field's runner-up tag (the classifier's second choice). */
export const RUNNER_UP_SUPPORT = 1;

/**
 * The best-supported other classification, or null when the current one is best. Support for a tag: the similarity-
 * weighted share of the nearest fields carrying it (confirmed ones count double), the classifier's confidence when it
 * names it, and ½ for the tag whose fields or anchor fit better (a negative margin). The current tag gets the same
 * (its margins count for it when non-negative). When the current tag is best but its level is not what the evidence
 * expects, the suggestion is the same tag at the expected level.
 */
export function suggestClassification(x: SuggestionInput): Suggestion | null {
  if (!(x.outlierScore >= x.threshold)) return null;
  // A reviewer decided its twin (the same column elsewhere) otherwise: that decision is the suggestion.
  if (x.twin && (x.twin.tagId !== x.tagId || x.twin.level !== x.level))
    return withConfidence({ tagId: x.twin.tagId, level: x.twin.level, by: 'twin' }, x.outlierScore, 1);
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
  // A self-classified field's own tag IS the classifier's answer: its confidence is already in the score, and counting
  // it again as support for the current tag would hide every alternative.
  if (x.predicted && !(x.evidence.selfClassified && x.predicted.tagId === x.tagId))
    add(x.predicted.tagId, x.predicted.confidence);
  // The runner-up of the classifier's own answer (an imported label was not its answer: its view counts above).
  if (
    x.evidence.selfClassified &&
    x.runnerUpTagId !== null &&
    x.runnerUpTagId !== undefined &&
    x.runnerUpTagId !== x.tagId
  )
    add(x.runnerUpTagId, RUNNER_UP_SUPPORT);
  if (x.corrections && x.corrections.tagId !== x.tagId) add(x.corrections.tagId, x.corrections.share);
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
  // A self-classified field the score calls more likely wrong than right shows its best alternative even when its own
  // tag has more support: that support comes mostly from the same classifier's answers around it.
  if (
    best !== null &&
    (bestSupport > own || (x.evidence.selfClassified === true && x.outlierScore >= SELF_ALTERNATIVE_FROM))
  ) {
    const fromClassifier = x.predicted !== null && x.predicted.tagId === best;
    const fromCorrections = !fromClassifier && x.corrections?.tagId === best;
    const level = fromClassifier
      ? (x.predicted as { level: string }).level
      : fromCorrections
        ? (x.corrections as { level: string }).level
        : (x.usualLevel(best) ?? x.level);
    const by =
      fromClassifier || (x.runnerUpTagId === best && !fromCorrections)
        ? 'classifier'
        : fromCorrections
          ? 'corrections'
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

const round3 = (v: number): number => Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000;

/**
 * The suggestion's confidence is a logistic model of what a reviewer accepts: logit(p) = intercept[by] +
 * score × logit(outlier score) + share × (its share of the support). Fitted by bench/quality/fit-suggestion.ts on the
 * development half of the public schemas (the classifier's own answers, before and after a third of its mistakes is
 * corrected): `p` is the share of such suggestions whose tag the field's label accepts at a level within one step.
 * docs/metrics.md gives the held-out reliability per bucket.
 */
export const SUGGESTION_CALIBRATION: { score: number; share: number; intercept: Record<Suggestion['by'], number> } = {
  // Fitted 2026-11-26 on 2,281 development-half suggestions (rounded): a higher outlier score does not make the
  // suggestion likelier right (the doubt is about the current label, not for this alternative); a larger share of the
  // support does. `margins` was never the source there: it takes the base (classifier) intercept.
  score: -0.28,
  share: 1.31,
  intercept: { classifier: -1.5, neighbours: -3.52, margins: -1.5, level: 3.53, twin: 6.22, corrections: -2.08 },
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
