// Fits the outlier model's weights (docs/metrics.md, "Outlier model"): imports the tuning catalogs exactly as run.ts
// does, collects for every field the signals outlierScore() combines, and fits a logistic regression of "label was
// flipped" on them by maximum likelihood (Newton's method; a tiny ridge of 1e-3 only keeps the steps finite).
// Prints the per-seed fits, the pooled fit, a leave-one-seed-out check, and how the rounded OUTLIER_WEIGHTS
// in metrics.math.ts score. Only tuning seeds belong here; held-out seeds are for run.ts alone.
// Run: npx tsx bench/quality/fit.ts   Knob: QUALITY_TUNING (default "1/7,2/12,3/13"), QUALITY_SHARE (0.1).
import { decodeVector } from '../../src/db/database.js';
import { auroc, exactNeighbours, precisionAtK } from './measures.js';
import { type AxisScores } from '../../src/modules/metrics/axes.js';
import { marginScale, nearestTagEvidence } from '../../src/modules/metrics/measure-field.js';
import { OUTLIER_WEIGHTS, outlierScore, outlierTerms, type OutlierInput } from '../../src/modules/metrics/outlier-model.js';
import { dot, normalize } from '../../src/modules/metrics/vectors.js';
import { NEIGHBOURS_K } from '../../src/modules/metrics/staleness.js';
import { importFlippedCatalog } from './setup.js';

const TUNING = (process.env.QUALITY_TUNING ?? '1/7,2/12,3/13').split(',').map((s) => s.split('/').map(Number) as [number, number]);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);
const FEATURES = ['disagreement', 'peerMargin', 'anchorMargin', 'nearestRatio', 'axisFit'] as const;

interface SeedData {
  label: string;
  inputs: OutlierInput[];
  /** Per field: the features in FEATURES order, as outlierTerms() sees them before weighting. */
  x: number[][];
  y: boolean[];
  stored: number[];
}

/**
 * The unweighted signals, exactly as outlierTerms() clips and defaults them: each term divided by its weight
 * (every weight in use is non-zero).
 */
function featuresOf(input: OutlierInput): number[] {
  const terms = outlierTerms(input);
  return FEATURES.map((f) => terms[f] / OUTLIER_WEIGHTS[f]);
}

async function collect(seed: number, flipSeed: number): Promise<SeedData> {
  const { database, flipped, ids, close } = await importFlippedCatalog(seed, flipSeed, SHARE);
  try {
    const metrics = await database.db.selectFrom('field_metrics').selectAll().execute();
    const byId = new Map(metrics.map((m) => [m.field_id, m]));
    const rows = await database.db.selectFrom('fields').select(['id', 'embedding', 'tag_id']).execute();
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const vectors = ids.map((id) => normalize(decodeVector(rowById.get(id)!.embedding!)));
    const tags = ids.map((id) => rowById.get(id)!.tag_id);
    // The service takes the closest same-tag field from the neighbours and the peer sample (every member of a tag of
    // ≤ 257 fields, which covers every tag here) and neighbours from its HNSW index; exact search stands in for it.
    const neighbours = exactNeighbours(vectors, NEIGHBOURS_K);
    const ms = ids.map((id) => byId.get(id)!);
    const peer = marginScale(ms.flatMap((m) => (m.peer_margin === null ? [] : [m.peer_margin])));
    const anchor = marginScale(ms.flatMap((m) => (m.anchor_margin === null ? [] : [m.anchor_margin])));
    const inputs = ids.map((_, i): OutlierInput => {
      const m = ms[i]!;
      let own: number | null = null;
      for (let j = 0; j < vectors.length; j++) if (j !== i && tags[j] === tags[i]) own = Math.max(own ?? -1, dot(vectors[i]!, vectors[j]!));
      const labelled = neighbours[i]!.map((n) => ({ similarity: n.similarity, tag_id: tags[n.index]! }));
      const scores: AxisScores = {
        category_anchor: m.score_category_anchor,
        centroid: m.score_centroid,
        peer_mean: m.score_peer_mean,
        nearest: m.score_nearest,
        lower_quartile: m.score_lower_quartile,
        farthest: m.score_farthest,
      };
      return {
        scores,
        neighbourDisagreement: m.neighbour_disagreement,
        peerMargin: m.peer_margin,
        anchorMargin: m.anchor_margin,
        nearestRatio: nearestTagEvidence(labelled, { tag_id: tags[i]! }, own).ratio,
        scales: { peer, anchor },
      };
    });
    return { label: `${seed}/${flipSeed}`, inputs, x: inputs.map(featuresOf), y: flipped, stored: ms.map((m) => m.outlier_score) };
  } finally {
    await close();
  }
}

/** Solves A x = b (Gaussian elimination with partial pivoting); A is small and symmetric positive definite here. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Logistic regression by Newton's method; returns [intercept, ...weights]. */
function fitLogistic(x: number[][], y: boolean[], ridge = 1e-3): number[] {
  const d = x[0]!.length + 1;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 100; iter++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    x.forEach((row, i) => {
      const xi = [1, ...row];
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, k) => s + v * w[k]!, 0)));
      const r = p - (y[i] ? 1 : 0);
      for (let a = 0; a < d; a++) {
        g[a]! += r * xi[a]!;
        for (let b = 0; b < d; b++) h[a]![b]! += p * (1 - p) * xi[a]! * xi[b]!;
      }
    });
    for (let a = 1; a < d; a++) {
      g[a]! += ridge * w[a]!;
      h[a]![a]! += ridge;
    }
    const step = solve(h, g);
    w = w.map((v, k) => v - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

const linear = (w: number[], row: number[]): number => row.reduce((s, v, k) => s + v * w[k + 1]!, w[0]!);
const fmtW = (w: number[]): string => ['intercept', ...FEATURES].map((n, k) => `${n} ${w[k]!.toFixed(2)}`).join(', ');
const judge = (scores: number[], y: boolean[]): string => `AUROC ${auroc(scores, y).toFixed(3)}  P@k ${precisionAtK(scores, y, y.filter(Boolean).length).toFixed(3)}`;

const data: SeedData[] = [];
for (const [seed, flipSeed] of TUNING) data.push(await collect(seed, flipSeed));

for (const s of data) console.log(`seed ${s.label} alone:   ${fmtW(fitLogistic(s.x, s.y))}`);
const pooled = fitLogistic(data.flatMap((s) => s.x), data.flatMap((s) => s.y));
console.log(`pooled:            ${fmtW(pooled)}`);
/** Leave one seed out: fit on the others, judge on it; `drop` leaves one signal out of the model (an ablation). */
const leaveOneOut = (drop: number | null): void => {
  const keep = (row: number[]): number[] => row.map((v, k) => (k === drop ? 0 : v));
  const judged = data.map((s) => {
    const others = data.filter((o) => o !== s);
    const w = fitLogistic(others.flatMap((o) => o.x.map(keep)), others.flatMap((o) => o.y));
    return `${s.label}: ${judge(s.x.map((row) => linear(w, keep(row))), s.y)}`;
  });
  console.log(`fitted on the other seeds${drop === null ? '' : `, without ${FEATURES[drop]}`}: ${judged.join('; ')}`);
};
leaveOneOut(null);
FEATURES.forEach((_, k) => leaveOneOut(k));
const fixed = [OUTLIER_WEIGHTS.intercept, ...FEATURES.map((f) => OUTLIER_WEIGHTS[f])];
console.log(`OUTLIER_WEIGHTS in use: ${fmtW(fixed)}`);
for (const s of data) {
  const recomputed = s.inputs.map(outlierScore);
  const gaps = recomputed.map((r, i) => Math.abs(r - s.stored[i]!));
  const off = gaps.filter((g) => g > 1e-6).length;
  console.log(`seed ${s.label}: ${judge(recomputed, s.y)} (${off} fields differ from the stored outlier_score, by at most ${Math.max(...gaps).toFixed(3)})`);
}
