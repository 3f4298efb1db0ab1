// Fits the outlier model's weights (docs/metrics.md, "Outlier model"): imports the tuning catalogs exactly as run.ts
// does, collects for every field the signals outlierScore() combines, and fits a logistic regression of "label was
// flipped" on them by maximum likelihood (Newton's method; a tiny ridge of 1e-3 only keeps the steps finite).
// Prints the per-seed fits, the pooled fit, a leave-one-seed-out check, and how the rounded OUTLIER_WEIGHTS
// in metrics.math.ts score. Only tuning seeds belong here; held-out seeds are for run.ts alone.
// Run: npx tsx bench/quality/fit.ts   Knob: QUALITY_TUNING (default "1/7,2/12,3/13"), QUALITY_SHARE (0.1).
import { auroc, precisionAtK } from './measures.js';
import {
  OUTLIER_FEATURES,
  OUTLIER_WEIGHTS,
  outlierScore,
  outlierSignals,
  type OutlierInput,
} from '../../src/modules/metrics/outlier-model.js';
import { ERROR_MODES, type ErrorMode } from './catalog.js';
import { fitLogistic, linearPredictor } from './logistic.js';
import { loggedFlippedCatalog } from './setup.js';

const TUNING = (process.env.QUALITY_TUNING ?? '1/7,2/12,3/13')
  .split(',')
  .map((s) => s.split('/').map(Number) as [number, number]);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);
const MODES = (process.env.QUALITY_MODES ?? ERROR_MODES.join(',')).split(',') as ErrorMode[];
const FEATURES = OUTLIER_FEATURES;

interface SeedData {
  label: string;
  inputs: OutlierInput[];
  /** Per field: the features in FEATURES order, as outlierTerms() sees them before weighting. */
  x: number[][];
  y: boolean[];
  stored: number[];
}

/** The unweighted signals, exactly as outlierTerms() clips and defaults them. */
function featuresOf(input: OutlierInput): number[] {
  const signals = outlierSignals(input);
  return FEATURES.map((f) => signals[f]);
}

/** The catalog of one seed and mode, imported and drained with the worker recording every field's model input. */
async function collect(seed: number, flipSeed: number, mode: ErrorMode): Promise<SeedData> {
  const { inputs, flipped, stored } = await loggedFlippedCatalog(seed, flipSeed, SHARE, mode);
  return { label: `${mode} ${seed}/${flipSeed}`, inputs, x: inputs.map(featuresOf), y: flipped, stored };
}

const fmtW = (w: number[]): string => ['intercept', ...FEATURES].map((n, k) => `${n} ${w[k]!.toFixed(2)}`).join(', ');
const judge = (scores: number[], y: boolean[]): string =>
  `AUROC ${auroc(scores, y).toFixed(3)}  P@k ${precisionAtK(scores, y, y.filter(Boolean).length).toFixed(3)}`;

const data: SeedData[] = [];
for (const [seed, flipSeed] of TUNING) for (const mode of MODES) data.push(await collect(seed, flipSeed, mode));

const pooled = fitLogistic(
  data.flatMap((s) => s.x),
  data.flatMap((s) => s.y),
);
console.log(`pooled over ${data.length} catalogs: ${fmtW(pooled)}`);
for (const s of data)
  console.log(
    `  ${s.label}: pooled fit ${judge(
      s.x.map((row) => linearPredictor(pooled, row)),
      s.y,
    )}`,
  );
/** Leave one seed out (all its modes): fit on the other seeds, judge on it. */
for (const [seed, flipSeed] of TUNING) {
  const label = `${seed}/${flipSeed}`;
  const others = data.filter((o) => !o.label.endsWith(` ${label}`));
  const w = fitLogistic(
    others.flatMap((o) => o.x),
    others.flatMap((o) => o.y),
  );
  console.log(
    `fitted without seed ${label}: ${data
      .filter((o) => o.label.endsWith(` ${label}`))
      .map(
        (s) =>
          `${s.label} ${judge(
            s.x.map((row) => linearPredictor(w, row)),
            s.y,
          )}`,
      )
      .join('; ')}`,
  );
}
const fixed = [OUTLIER_WEIGHTS.intercept, ...FEATURES.map((f) => OUTLIER_WEIGHTS[f])];
console.log(`OUTLIER_WEIGHTS in use: ${fmtW(fixed)}`);
for (const s of data) {
  const recomputed = s.inputs.map(outlierScore);
  console.log(`  ${s.label}: ${judge(recomputed, s.y)} (stored: ${judge(s.stored, s.y)})`);
}
