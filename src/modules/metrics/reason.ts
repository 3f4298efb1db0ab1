// The reason sentence stored with a field's metrics: the strongest evidence, in words a reviewer can check.
import { AXES, AXIS_KEYS, type AxisKey, type AxisScores } from './axes.js';
import type { OutlierTerms, Severity } from './outlier-model.js';
import { clamp } from './vectors.js';

export interface ReasonInput {
  /** Classification label of the field itself, e.g. "Technical/Timestamp (L2)". */
  classification: string;
  scores: AxisScores;
  /** The nearest other field: its display name (e.g. `table.column`), similarity and classification. */
  nearest?: { name: string; datasource?: string; similarity: number; classification: string; sameClassification: boolean } | null;
  /** Another tag that fits better than the field's own (negative margin), if any. */
  betterTag?: { classification: string; by: 'anchor' | 'peers' } | null;
  /** Which outlier term dominated (outlierTerms()); optional. */
  terms?: OutlierTerms;
  severity?: Severity;
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

/**
 * One or two plain sentences naming the strongest evidence: the nearest field with its classification and
 * similarity (first when it disagrees), a better-fitting tag, and the weakest axis with its percentile.
 */
export function reasonFor(input: ReasonInput): string {
  const sentences: string[] = [];
  const n = input.nearest;
  // The neighbour with its data source: `table.field` alone is ambiguous across sources.
  const where = n?.datasource ? ` in ${n.datasource}` : '';
  if (n && !n.sameClassification) {
    sentences.push(
      `Nearest field \`${n.name}\`${where} (similarity ${n.similarity.toFixed(2)}) is classified ${n.classification}, not ${input.classification}.`,
    );
  }
  if (input.betterTag && sentences.length < 2) {
    const by = input.betterTag.by === 'anchor' ? "that tag's anchor" : "that tag's fields";
    sentences.push(`It is closer to ${by} (${input.betterTag.classification}) than to its own tag.`);
  }
  if (sentences.length < 2) {
    const weak = weakestAxis(input.scores);
    if (weak.score < 0.5 || sentences.length === 0) {
      sentences.push(`${AXES[weak.axis].phrase} is ${percentilePhrase(weak.score)}.`);
    }
  }
  if (n && n.sameClassification && sentences.length < 2) {
    sentences.push(`Nearest field \`${n.name}\`${where} (similarity ${n.similarity.toFixed(2)}) shares its classification ${input.classification}.`);
  }
  return sentences.slice(0, 2).join(' ');
}
