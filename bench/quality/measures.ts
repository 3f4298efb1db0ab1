// Evaluation measures of the quality benchmark (bench-only): AUROC, precision@k, and the kNN-disagreement baseline
// the outlier score is compared with.
import { dot } from '../../src/modules/metrics/vectors.js';

/**
 * The benchmark's baseline: for every field, the similarity-weighted share of its k nearest other fields
 * (exact, brute force) with another tag. O(n² d); meant for benchmark catalogs, not the service.
 */
export function knnDisagreementBaseline(vectors: readonly Float32Array[], tagIds: readonly number[], k = 10): number[] {
  const neighbours = exactNeighbours(vectors, k);
  return neighbours.map((list, i) => {
    let w = 0;
    let bad = 0;
    for (const { index, similarity } of list) {
      const s = Math.max(0, similarity);
      w += s;
      if (tagIds[index] !== tagIds[i]) bad += s;
    }
    return w > 0 ? bad / w : 0;
  });
}

/** Exact k nearest other vectors for every vector, by cosine (dot of unit vectors), best first. */
export function exactNeighbours(
  vectors: readonly Float32Array[],
  k: number,
): Array<Array<{ index: number; similarity: number }>> {
  const n = vectors.length;
  const kk = Math.min(k, Math.max(0, n - 1));
  const out: Array<Array<{ index: number; similarity: number }>> = [];
  for (let i = 0; i < n; i++) {
    const idx = new Int32Array(kk).fill(-1);
    const sim = new Float64Array(kk).fill(-Infinity);
    const vi = vectors[i]!;
    for (let j = 0; j < n; j++) {
      if (j === i || kk === 0) continue;
      const s = dot(vi, vectors[j]!);
      if (s <= sim[kk - 1]!) continue;
      let p = kk - 1;
      while (p > 0 && sim[p - 1]! < s) {
        sim[p] = sim[p - 1]!;
        idx[p] = idx[p - 1]!;
        p--;
      }
      sim[p] = s;
      idx[p] = j;
    }
    const list: Array<{ index: number; similarity: number }> = [];
    for (let p = 0; p < kk; p++) if (idx[p]! >= 0) list.push({ index: idx[p]!, similarity: sim[p]! });
    out.push(list);
  }
  return out;
}

/**
 * Area under the ROC curve of `scores` for positives `labels` (Mann–Whitney U with average ranks, so ties
 * count one half). NaN when either class is empty.
 */
export function auroc(scores: readonly number[], labels: readonly boolean[]): number {
  if (scores.length !== labels.length) throw new RangeError('auroc: scores and labels differ in length');
  const order = scores.map((s, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let pos = 0;
  let rankSumPos = 0;
  let i = 0;
  while (i < order.length) {
    let j = i;
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) {
      if (labels[order[t]!]) {
        pos++;
        rankSumPos += avgRank;
      }
    }
    i = j + 1;
  }
  const neg = scores.length - pos;
  if (pos === 0 || neg === 0) return Number.NaN;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Share of positives among the k highest scores. Ties across the cut-off count in expectation (each tied
 * item contributes the fraction of the tied group that fits), so the result does not depend on input order.
 */
export function precisionAtK(scores: readonly number[], labels: readonly boolean[], k: number): number {
  if (scores.length !== labels.length) throw new RangeError('precisionAtK: scores and labels differ in length');
  const kk = Math.min(Math.floor(k), scores.length);
  if (kk <= 0) return Number.NaN;
  const order = scores.map((s, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  let hits = 0;
  let taken = 0;
  let i = 0;
  while (taken < kk && i < order.length) {
    let j = i;
    while (j + 1 < order.length && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const group = j - i + 1;
    let groupPos = 0;
    for (let t = i; t <= j; t++) if (labels[order[t]!]) groupPos++;
    const take = Math.min(group, kk - taken);
    hits += (groupPos * take) / group;
    taken += take;
    i = j + 1;
  }
  return hits / kk;
}

/** What the six axis scores say on their own (issue 25): can a reviewer read a wrong field from its bars? */
export interface AxesFigures {
  /** AUROC of (1 − the mean of the six scores) for wrong vs right fields: low bars = suspicious. */
  meanAuroc: number;
  /** Median of the mean of the six scores over the right fields, and over the wrong ones. */
  medianRight: number;
  medianWrong: number;
  /** The single axis whose (1 − score) ranks the wrong fields best, with its AUROC. */
  best: { axis: string; auroc: number };
  /** Every axis's AUROC on its own. */
  perAxis: Record<string, number>;
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export function axesFigures(
  scores: ReadonlyArray<Readonly<Record<string, number>>>,
  wrong: readonly boolean[],
): AxesFigures {
  const axes = Object.keys(scores[0] ?? {});
  const means = scores.map((s) => axes.reduce((sum, a) => sum + (s[a] as number), 0) / Math.max(axes.length, 1));
  let best = { axis: '', auroc: Number.NaN };
  const perAxis: Record<string, number> = {};
  for (const axis of axes) {
    const a = auroc(
      scores.map((s) => 1 - (s[axis] as number)),
      wrong,
    );
    perAxis[axis] = a;
    if (!(a <= best.auroc)) best = { axis, auroc: a };
  }
  return {
    meanAuroc: auroc(
      means.map((m) => 1 - m),
      wrong,
    ),
    medianRight: median(means.filter((_, i) => !wrong[i])),
    medianWrong: median(means.filter((_, i) => wrong[i])),
    best,
    perAxis,
  };
}

export function formatAxesFigures(f: AxesFigures): string {
  return `mean-of-six-axes AUROC ${f.meanAuroc.toFixed(3)}, median right ${f.medianRight.toFixed(2)} vs wrong ${f.medianWrong.toFixed(2)}, best axis ${f.best.axis} ${f.best.auroc.toFixed(3)} (${Object.entries(
    f.perAxis,
  )
    .map(([a, v]) => `${a} ${v.toFixed(2)}`)
    .join(', ')})`;
}
