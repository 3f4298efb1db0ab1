// The reason sentence stored with a field's metrics: the strongest evidence, in words a reviewer can check.
// It never contradicts itself: the only other classification it names is the suggested one (or, as a plain fact,
// the nearest field's own), and a neighbour is named with its data source.
import { AXIS_KEYS, type AxisKey, type AxisScores } from './axes.js';
import type { OutlierTerms, Severity } from './outlier-model.js';
import type { Suggestion } from './suggestion.js';

/** One of the field's nearest other fields (closest first), as a reason may count it. */
export interface ReasonNeighbour {
  /** Its classification label, e.g. "Personal/Identity/Date of birth (L4)". */
  classification: string;
  /** Same tag and level as the field. */
  sameClassification: boolean;
  /** Its tag is the suggested one. */
  sameTagAsSuggestion: boolean;
  /** Its data source's name, when looked up (only for suspicious fields). */
  datasource?: string;
}

export interface ReasonInput {
  /** Classification label of the field itself, e.g. "Technical/Timestamp (L2)". */
  classification: string;
  /** Its tag alone, e.g. "Technical/Timestamp". */
  tag?: string;
  level?: string;
  scores: AxisScores;
  /** The nearest other field: its display name (e.g. `table.column`), similarity and classification. */
  nearest?: {
    name: string;
    datasource?: string;
    similarity: number;
    classification: string;
    sameClassification: boolean;
    sameTagAsSuggestion?: boolean;
  } | null;
  /**
   * The field's nearest other fields, closest first, the nearest among them (REASON_NEIGHBOURS of them): a reason
   * says how many of them carry the other classification, and in which data source when they share one.
   */
  neighbours?: readonly ReasonNeighbour[];
  /** Another tag that fits better than the field's own (negative margin), if any; used only when it is the suggestion. */
  betterTag?: { classification: string; by: 'anchor' | 'peers' } | null;
  /** The suggested classification's label and what chose it. */
  suggestion?: {
    classification: string;
    sameTag: boolean;
    by: Suggestion['by'];
  } | null;
  /**
   * The classifier's view when it disagrees with the tag: its label and confidence, and how many of its points the
   * field's own tag trails it by (null: unknown).
   */
  classifier?: { classification: string; confidence: number; labelGap?: number | null } | null;
  /**
   * The level the evidence expects for the field's tag, when it differs; with how many of the tag's other fields sit
   * at that level (`peersAtLevel` of `peers`) and whether it is the tag's default level.
   */
  expectedLevel?: { level: string; under: boolean; peersAtLevel?: number; peers?: number; isDefault?: boolean } | null;
  /**
   * Its level is not its tag's usual one (fit-scores.ts levelFit): how many of the tag's other fields share it, of how
   * many, and the tag's usual level. The four tag bars are scaled down by it, so a weak tag bar is said in these terms.
   */
  unusualLevel?: { atLevel: number; of: number; usual: string } | null;
  /** Which outlier terms dominated (outlierTerms()); optional. */
  terms?: OutlierTerms;
  severity?: Severity;
  /** A confirmed field whose neighbourhood has not changed since. */
  confirmedUnchanged?: boolean;
  /** When the classification is the classifier's own answer: how sure it was of it (its calibrated confidence). */
  selfConfidence?: number | null;
  /** A reviewer confirmed a field with the same name, table, comment and type (a twin) as this classification. */
  twin?: { classification: string } | null;
  /**
   * Reviewers corrected `count` confirmed fields of the same data source, named with the same first word, from the
   * classifier's same answer to `classification` (ReviewedEvidence.pattern).
   */
  pattern?: { classification: string; count: number } | null;
}

/** What reviewers did with the classifier's same answer on the fields named like this one in its data source. */
function patternSentence(pattern: { classification: string; count: number }, own: string): string {
  return pattern.count === 1
    ? `FieldLens had put another field of this data source whose name starts with the same word in ${own} too; a reviewer corrected it to ${pattern.classification}.`
    : `FieldLens had put ${pattern.count} other fields of this data source whose names start with the same word in ${own} too; reviewers corrected them to ${pattern.classification}.`;
}

/** How many of the nearest fields a reason counts ("4 of its 5 nearest fields …"). */
export const REASON_NEIGHBOURS = 5;
/** Below this score an axis is weak enough to be worth a sentence (the console draws such a bar amber or red). */
export const WEAK_AXIS = 0.25;

/** The axis with the lowest normalised score (ties: the earlier axis in AXIS_KEYS). */
export function weakestAxis(scores: AxisScores): { axis: AxisKey; score: number } {
  let axis: AxisKey = AXIS_KEYS[0];
  for (const k of AXIS_KEYS) if (scores[k] < scores[axis]) axis = k;
  return { axis, score: scores[axis] };
}

/**
 * What a weak axis means for this field, in words a reviewer can check against the field itself (no statistics):
 * the tag's description, its level's fields, its tag's fields, the rest of the catalog.
 */
export function weakAxisPhrase(
  axis: AxisKey,
  tag: string | undefined,
  level: string | undefined,
  unusualLevel?: ReasonInput['unusualLevel'],
): string {
  const t = tag ?? 'its tag';
  if (unusualLevel && axis !== 'centroid' && axis !== 'nearest') return unusualLevelPhrase(t, level, unusualLevel);
  switch (axis) {
    case 'category_anchor':
      return `its name, type and comment are far from what ${t} describes`;
    case 'centroid':
      return `it looks more like fields at other levels than like those at ${level ?? 'its level'}`;
    case 'peer_mean':
      return `it is unlike the other fields tagged ${t}`;
    case 'nearest':
      return 'the fields closest to it carry other classifications';
    case 'lower_quartile':
      return `it sits at the edge of the fields tagged ${t}`;
    case 'farthest':
      return `some fields tagged ${t} are very unlike it`;
  }
}

/** Why the tag bars of a field at an unusual level are low: how few of its tag's fields share its level. */
export function unusualLevelPhrase(
  tag: string,
  level: string | undefined,
  u: NonNullable<ReasonInput['unusualLevel']>,
): string {
  const at = level ?? 'its level';
  const share =
    u.atLevel === 0
      ? `none of the ${u.of} other fields tagged ${tag} is ${at}`
      : `only ${u.atLevel} of the ${u.of} other fields tagged ${tag} ${u.atLevel === 1 ? 'is' : 'are'} ${at}`;
  return `${share}; most are ${u.usual}`;
}

type Kind = 'neighbours' | 'classifier' | 'level' | 'anchor' | 'reviewed' | 'self';

/** The evidence kinds ordered by their contribution to the score (largest first), positive ones only. */
function strongestKinds(t: OutlierTerms | undefined): Kind[] {
  if (!t) return ['neighbours'];
  const sums: Array<[Kind, number]> = [
    ['neighbours', t.disagreement + t.nearestRatio + Math.max(0, t.peerMargin)],
    ['classifier', t.classifierOther + t.classifierFar + t.labelGap],
    ['level', t.under + t.over + t.underClassifier + t.overClassifier],
    ['anchor', Math.max(0, t.anchorMargin)],
    ['reviewed', t.twinOther + Math.max(0, t.confirmedOther) + t.patternOther],
    ['self', t.selfDoubt + Math.max(0, t.selfLooseTag)],
  ];
  return sums
    .filter(([, v]) => v > 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([k]) => k);
}

/**
 * The largest group of the nearest fields that share one other classification: how many, of how many, the label,
 * whether the nearest field is one of them, and their data source when they all share one.
 */
function neighbourGroup(neighbours: readonly ReasonNeighbour[]): {
  count: number;
  of: number;
  classification: string;
  nearestInGroup: boolean;
  sameTagAsSuggestion: boolean;
  datasource: string | undefined;
} | null {
  const counts = new Map<string, ReasonNeighbour[]>();
  for (const n of neighbours)
    if (!n.sameClassification) counts.set(n.classification, [...(counts.get(n.classification) ?? []), n]);
  let best: ReasonNeighbour[] | undefined;
  // Ties go to the group holding the closer field (Map order is the order of first appearance, closest first).
  for (const group of counts.values()) if (!best || group.length > best.length) best = group;
  if (!best) return null;
  const nearestInGroup = best[0] === neighbours[0];
  const sources = new Set(best.map((n) => n.datasource));
  // A data source is named only with the nearest field, which the reason then names too: a reason naming a deleted
  // field (or its data source) is withheld until recomputed (metrics.service), and that check looks for the nearest.
  const datasource = nearestInGroup && sources.size === 1 ? [...sources][0] : undefined;
  return {
    count: best.length,
    of: neighbours.length,
    classification: best[0]!.classification,
    nearestInGroup,
    sameTagAsSuggestion: best[0]!.sameTagAsSuggestion,
    datasource,
  };
}

/**
 * One or two plain sentences naming the strongest evidence, in words a reviewer acts on: what the field's nearest
 * fields are and what it is, what its own name and values point to, which level fields of its tag have. For a
 * suspicious field (severity medium or high): the evidence kinds in order of their weight in the score. For a field
 * that fits: the agreeing nearest field or confirmation, then what is weak about it, if anything.
 */
export function reasonFor(input: ReasonInput): string {
  const sentences: string[] = [];
  const n = input.nearest;
  const where = n?.datasource ? ` in ${n.datasource}` : '';
  const nearestPhrase = n ? `Nearest field \`${n.name}\`${where} (similarity ${n.similarity.toFixed(2)})` : '';
  const suspicious = input.severity === 'high' || input.severity === 'medium';
  const s = input.suggestion;
  const own = input.classification;
  if (suspicious) {
    // A reason names no other classification than the suggested one, or (as a plain fact) the nearest fields' own.
    const nameable = (sameTagAsSuggestion: boolean) => !s || s.sameTag || sameTagAsSuggestion;
    const group = input.neighbours && input.neighbours.length > 1 ? neighbourGroup(input.neighbours) : null;
    for (const kind of strongestKinds(input.terms)) {
      if (sentences.length >= 2) break;
      if (kind === 'neighbours' && group && group.count >= 2 && nameable(group.sameTagAsSuggestion)) {
        const many =
          group.count === group.of
            ? `Its ${group.of} nearest fields${group.datasource ? ` in ${group.datasource}` : ''} are all`
            : `${group.count} of its ${group.of} nearest fields${group.datasource ? ` in ${group.datasource}` : ''} are`;
        const closest =
          group.nearestInGroup && n
            ? `, the closest \`${n.name}\`${group.datasource ? '' : where} (similarity ${n.similarity.toFixed(2)})`
            : '';
        sentences.push(`${many} ${group.classification}${closest}; it is ${own}.`);
      } else if (kind === 'neighbours' && n && !n.sameClassification && nameable(n.sameTagAsSuggestion ?? false)) {
        sentences.push(`${nearestPhrase} is ${n.classification}; it is ${own}.`);
      } else if (kind === 'neighbours' && s && !s.sameTag && s.by === 'neighbours') {
        sentences.push(`Its nearest fields are mostly ${s.classification}; it is ${own}.`);
      } else if (
        kind === 'classifier' &&
        input.classifier &&
        (nameable(false) || s?.by === 'classifier' || s?.classification === input.classifier.classification)
      ) {
        // When the label gap weighs more than the classifier's confidence, say how little the field speaks for its tag.
        const gap = input.classifier.labelGap;
        const trails =
          input.terms !== undefined &&
          gap !== null &&
          gap !== undefined &&
          gap > 0 &&
          input.terms.labelGap > input.terms.classifierOther + input.terms.classifierFar
            ? `; ${input.tag ?? 'its tag'} trails by ${gap.toFixed(1)} points`
            : '';
        sentences.push(
          `Its own name, table, comment, type and value formats point to ${input.classifier.classification} (classifier ${Math.round(input.classifier.confidence * 100)}% sure${trails}), not ${own}.`,
        );
      } else if (kind === 'level' && input.expectedLevel && input.level) {
        const e = input.expectedLevel;
        const tag = input.tag ?? 'its tag';
        const peers = e.peers ?? 0;
        const at = e.peersAtLevel ?? 0;
        const counted =
          peers === 1
            ? `The only other field tagged ${tag} is ${e.level}`
            : at === peers
              ? `All ${peers} other fields tagged ${tag} are ${e.level}`
              : `${at} of the ${peers} other fields tagged ${tag} are ${e.level}`;
        const basis =
          peers > 0 && at > 0
            ? `${counted}${e.isDefault ? ", the tag's default" : ''}`
            : e.isDefault
              ? `The default level of ${tag} is ${e.level}`
              : `Fields like it are classified ${e.level}`;
        sentences.push(`${basis}, so at ${input.level} it looks ${e.under ? 'under-classified' : 'over-classified'}.`);
      } else if (kind === 'reviewed' && input.twin) {
        sentences.push(`A reviewer confirmed the same column elsewhere as ${input.twin.classification}; it is ${own}.`);
      } else if (kind === 'reviewed' && input.pattern) {
        sentences.push(patternSentence(input.pattern, own));
      } else if (kind === 'self' && input.selfConfidence !== null && input.selfConfidence !== undefined) {
        const alternative =
          s && !s.sameTag && s.by === 'classifier' ? `; its second choice was ${s.classification}` : '';
        sentences.push(
          `FieldLens classified it ${own} itself, only ${Math.round(input.selfConfidence * 100)}% sure from its name, table, type and values${alternative}.`,
        );
      } else if (
        kind === 'anchor' &&
        input.betterTag &&
        (!s || (!s.sameTag && s.classification.startsWith(input.betterTag.classification)))
      ) {
        sentences.push(
          `Its name, type and comment fit what ${input.betterTag.classification} describes better than its own tag.`,
        );
      }
    }
    if (sentences.length === 0 && s) sentences.push(`${s.classification} fits it better than ${own}.`);
    // Doubt with nothing to name (no suggestion, no disagreeing neighbour): said so, never an empty reason.
    if (sentences.length === 0)
      sentences.push(`Several signals doubt ${own}, none enough to name another classification.`);
    if (sentences.length === 1) {
      const weak = weakestAxis(input.scores);
      // Bars and severity tell one story: when every bar is above the median, say why the score is high anyway.
      if (weak.score >= 0.5)
        sentences.push(
          'Its bars are high because the fields around it carry the same label; this evidence does not depend on those labels.',
        );
      else if (weak.score < WEAK_AXIS)
        sentences.push(`Also, ${weakAxisPhrase(weak.axis, input.tag, input.level, input.unusualLevel)}.`);
    }
    return sentences.slice(0, 2).join(' ');
  }
  if (input.confirmedUnchanged)
    sentences.push(`Confirmed by a reviewer as ${own}; its neighbourhood has not changed since.`);
  // A naming pattern's correction is suggested at any score: said, so the suggestion never goes unexplained.
  if (input.pattern && s?.by === 'pattern') sentences.push(patternSentence(input.pattern, own));
  if (n && n.sameClassification && sentences.length < 2) sentences.push(`${nearestPhrase} is ${own} too.`);
  if (sentences.length < 2 && !input.confirmedUnchanged && s?.by !== 'pattern') {
    const weak = weakestAxis(input.scores);
    // A weak axis of a field that fits is no evidence against it: said as such, after the verdict.
    sentences.push(
      weak.score < WEAK_AXIS
        ? `Nothing points to another classification, though ${weakAxisPhrase(weak.axis, input.tag, input.level, input.unusualLevel)}.`
        : 'Nothing points to another classification.',
    );
  }
  return sentences.slice(0, 2).join(' ');
}
