// Fits the self-classified terms of the outlier model (docs/metrics.md, "Self-classified fields") on the DEVELOPMENT
// half of the public schemas only, on top of the fixed terms fitted by fit.ts (their log-odds are the offset, so the
// figures of the import-labelled catalogs do not move): first the self* terms on the catalog as the classifier left
// it, then the reviewed-evidence terms (confirmed neighbours, confirmed twins) after a seeded third of the wrong fields
// is corrected. Prints the fitted weights and the figures they give on both halves (the held-out half is only read
// to print, never fitted on).
// Run: npx tsx bench/quality/fit-self.ts   Knob: QUALITY_CORRECT_SEED (default 25).
import {
  OUTLIER_FEATURES,
  OUTLIER_WEIGHTS,
  outlierSignals,
  type OutlierInput,
} from '../../src/modules/metrics/outlier-model.js';
import { fitLogistic } from './logistic.js';
import { auroc, precisionAtK } from './measures.js';
import { correctSeededThird, importSelfClassified, isWrong, type FieldState } from './self-classified.js';

type Feature = (typeof OUTLIER_FEATURES)[number];
const SELF: Feature[] = [
  'selfBias',
  'selfDoubt',
  'selfDisagreement',
  'selfNearestRatio',
  'selfPeerMargin',
  'selfAnchorMargin',
  'selfLooseTag',
];
const REVIEWED: Feature[] = (process.env.FIT_REVIEWED ?? 'confirmedOther,confirmedAgrees,twinOther,patternOther').split(
  ',',
) as Feature[];
const seed = Number(process.env.QUALITY_CORRECT_SEED ?? 25);

/** Log-odds of the model with the given features' weights left out. */
function offsetOf(input: OutlierInput, without: readonly Feature[]): number {
  const x = outlierSignals(input);
  let z = OUTLIER_WEIGHTS.intercept;
  for (const f of OUTLIER_FEATURES) if (!without.includes(f)) z += OUTLIER_WEIGHTS[f] * x[f];
  if (input.confirmedUnchanged) z -= OUTLIER_WEIGHTS.confirmedUnchanged;
  return z;
}

const catalog = await importSelfClassified({ record: true });
try {
  const { fields, rank } = catalog;
  const log = catalog.featureLog as Map<string, OutlierInput>;
  const stage = (
    state: Map<string, FieldState>,
    skip: ReadonlySet<string>,
    features: readonly Feature[],
    fitted: ReadonlyMap<Feature, number>,
  ): Map<Feature, number> => {
    const rows = fields
      .filter((f) => !skip.has(f.id))
      .map((f) => ({ f, input: log.get(f.id) as OutlierInput, s: state.get(f.id) as FieldState }));
    const wrong = rows.map(({ f, s }) => isWrong(f, s.tagPath, s.level, rank));
    // Every other feature at its weight in use, or as fitted in an earlier stage.
    const offset = rows.map(({ input }) => {
      const x = outlierSignals(input);
      let z = offsetOf(input, [...features, ...fitted.keys()]);
      for (const [f, w] of fitted) z += w * x[f];
      return z;
    });
    const x = rows.map(({ input }) => features.map((f) => outlierSignals(input)[f]));
    const dev = rows.map(({ f }, i) => (f.half === 'development' ? i : -1)).filter((i) => i >= 0);
    const w = fitLogistic(
      dev.map((i) => x[i] as number[]),
      dev.map((i) => wrong[i] as boolean),
      1e-3,
      dev.map((i) => offset[i] as number),
      false,
    );
    const out = new Map(features.map((f, k) => [f, w[k + 1] as number]));
    console.log(
      `fitted on ${dev.length} development fields: ${features.map((f) => `${f} ${(out.get(f) as number).toFixed(2)}`).join(', ')}`,
    );
    for (const half of ['development', 'held-out'] as const) {
      const idx = rows.map(({ f }, i) => (f.half === half ? i : -1)).filter((i) => i >= 0);
      const y = idx.map((i) => wrong[i] as boolean);
      const judge = (z: (i: number) => number): string => {
        const s = idx.map(z);
        return `AUROC ${auroc(s, y).toFixed(3)} P@k ${precisionAtK(s, y, y.filter(Boolean).length).toFixed(3)}`;
      };
      const inUse = (i: number): number => offset[i] as number;
      const fittedZ = (i: number): number =>
        (offset[i] as number) +
        features.reduce((z, f, k) => z + (out.get(f) as number) * ((x[i] as number[])[k] as number), 0);
      const rounded = (i: number): number =>
        (offset[i] as number) +
        features.reduce(
          (z, f, k) => z + (Math.round((out.get(f) as number) * 20) / 20) * ((x[i] as number[])[k] as number),
          0,
        );
      console.log(
        `  ${half}: without these terms ${judge(inUse)}; fitted ${judge(fittedZ)}; rounded to 0.05 ${judge(rounded)}`,
      );
    }
    return out;
  };
  const before = await catalog.read();
  const self = stage(before, new Set(), SELF, new Map());
  const { corrected, after } = await correctSeededThird(catalog, before, seed);
  stage(after, corrected, REVIEWED, self);
} finally {
  await catalog.close();
}
