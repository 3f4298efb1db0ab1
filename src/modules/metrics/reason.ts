// The reason sentence stored with a field's metrics: the strongest evidence, in words a reviewer can check.
// It never contradicts itself: the only other classification it names is the suggested one (or, as a plain fact,
// the nearest field's own), and a neighbour is named with its data source.
import { AXES, AXIS_KEYS, type AxisKey, type AxisScores } from './axes.js';
import type { OutlierTerms, Severity } from './outlier-model.js';
import { clamp } from './vectors.js';

export interface ReasonInput {
  /** Classification label of the field itself, e.g. "Technical/Timestamp (L2)". */
  classification: string;
  /** Its tag alone, e.g. "Technical/Timestamp". */
  tag?: string;
  level?: string;
  scores: AxisScores;
  /** The nearest other field: its display name (e.g. `table.column`), similarity and classification. */
  nearest?: { name: string; datasource?: string; similarity: number; classification: string; sameClassification: boolean; sameTagAsSuggestion?: boolean } | null;
  /** Another tag that fits better than the field's own (negative margin), if any; used only when it is the suggestion. */
  betterTag?: { classification: string; by: 'anchor' | 'peers' } | null;
  /** The suggested classification's label and what chose it. */
  suggestion?: { classification: string; sameTag: boolean; by: 'classifier' | 'neighbours' | 'margins' | 'level' } | null;
  /** The classifier's view when it disagrees with the tag: its label and confidence. */
  classifier?: { classification: string; confidence: number } | null;
  /** The level the evidence expects for the field's tag, when it differs. */
  expectedLevel?: { level: string; under: boolean } | null;
  /** Which outlier terms dominated (outlierTerms()); optional. */
  terms?: OutlierTerms;
  severity?: Severity;
  /** A confirmed field whose neighbourhood has not changed since. */
  confirmedUnchanged?: boolean;
}

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

type Kind = 'neighbours' | 'classifier' | 'level' | 'anchor';

/** The evidence kinds ordered by their contribution to the score (largest first), positive ones only. */
function strongestKinds(t: OutlierTerms | undefined): Kind[] {
  if (!t) return ['neighbours'];
  const sums: Array<[Kind, number]> = [
    ['neighbours', t.disagreement + t.nearestRatio + Math.max(0, t.peerMargin)],
    ['classifier', t.classifierOther + t.classifierFar],
    ['level', t.under + t.over + t.underClassifier + t.overClassifier],
    ['anchor', Math.max(0, t.anchorMargin)],
  ];
  return sums.filter(([, v]) => v > 0.5).sort((a, b) => b[1] - a[1]).map(([k]) => k);
}

/**
 * One or two plain sentences naming the strongest evidence. For a suspicious field (severity medium or high): the
 * evidence kinds in order of their weight in the score — the nearest field of the suggested classification, the
 * classifier's view, the level the tag's fields and neighbours point to, the tag whose description fits better. For a
 * field that fits: the agreeing nearest field or confirmation, and the weakest axis when it is below the median.
 */
export function reasonFor(input: ReasonInput): string {
  const sentences: string[] = [];
  const n = input.nearest;
  const where = n?.datasource ? ` in ${n.datasource}` : '';
  const nearestPhrase = n ? `Nearest field \`${n.name}\`${where} (similarity ${n.similarity.toFixed(2)})` : '';
  const suspicious = input.severity === 'high' || input.severity === 'medium';
  const s = input.suggestion;
  if (suspicious) {
    for (const kind of strongestKinds(input.terms)) {
      if (sentences.length >= 2) break;
      if (kind === 'neighbours' && n && !n.sameClassification && (!s || s.sameTag || n.sameTagAsSuggestion)) {
        sentences.push(`${nearestPhrase} is classified ${n.classification}, not ${input.classification}.`);
      } else if (kind === 'neighbours' && s && !s.sameTag && s.by === 'neighbours') {
        sentences.push(`Its nearest fields are mostly classified ${s.classification}, not ${input.classification}.`);
      } else if (kind === 'classifier' && input.classifier) {
        sentences.push(
          `Its name, table, comment, type and value formats point to ${input.classifier.classification} (classifier confidence ${input.classifier.confidence.toFixed(2)}), not ${input.classification}.`,
        );
      } else if (kind === 'level' && input.expectedLevel && input.level) {
        const e = input.expectedLevel;
        sentences.push(`Fields like it are classified ${e.level}, so ${input.level} looks ${e.under ? 'too low (under-classified)' : 'too high (over-classified)'}.`);
      } else if (kind === 'anchor' && input.betterTag && (!s || (!s.sameTag && s.classification.startsWith(input.betterTag.classification)))) {
        sentences.push(`Its text fits the description of ${input.betterTag.classification} better than that of its own tag.`);
      }
    }
    if (sentences.length === 0 && s) sentences.push(`${s.classification} fits it better than ${input.classification}.`);
    if (sentences.length === 1) {
      const weak = weakestAxis(input.scores);
      // Bars and severity tell one story: when every bar is above the median, say why the score is high anyway.
      if (weak.score >= 0.5) sentences.push('Its bars are high because the fields around it carry the same label; this evidence does not depend on those labels.');
      else sentences.push(`${AXES[weak.axis].phrase} is ${percentilePhrase(weak.score)}.`);
    }
    return sentences.slice(0, 2).join(' ');
  }
  if (input.confirmedUnchanged) sentences.push(`Confirmed by a reviewer as ${input.classification}; its neighbourhood has not changed since.`);
  if (n && n.sameClassification && sentences.length < 2) sentences.push(`${nearestPhrase} shares its classification ${input.classification}.`);
  const weak = weakestAxis(input.scores);
  if (sentences.length < 2 && (weak.score < 0.5 || sentences.length === 0)) sentences.push(`${AXES[weak.axis].phrase} is ${percentilePhrase(weak.score)}.`);
  if (sentences.length < 2 && !input.confirmedUnchanged) sentences.push(`No evidence points to another classification.`);
  return sentences.slice(0, 2).join(' ');
}
