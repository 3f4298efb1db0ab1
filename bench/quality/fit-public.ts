// Fits the outlier model's weights for imported labels (OUTLIER_WEIGHTS up to labelGap; docs/metrics.md
// "Why these weights") on two sets pooled, and judges them where nothing was fitted (issue 25):
// - the public schemas' development half (bench/classify.ts's hash split): the seeded random, sibling and systematic
//   errors of public-seeded.ts (QUALITY_FIT_MODES), flip seeds QUALITY_TUNING (default 11,12,13) — not the level mode,
//   whose errors there are the only fields off their tag's default level (see FIT_MODES);
// - the generated catalog's tuning seeds (QUALITY_GENERATED_TUNING, default 1/7,2/12,3/13), all five modes, as fit.ts.
// Judged: the public held-out half (flip seeds QUALITY_JUDGE, default 7,8) and the public development half on those
// seeds, every mode; the generated catalog's held-out seeds (QUALITY_GENERATED_JUDGE, default 4/14,5/15); and one
// schema group of the development half left out at a time (schemas grouped by the first word of their name: shop,
// crm, erp, …; each judged with weights fitted without it). Each catalog is imported through the real service and
// drained with the worker recording every field's model input. Prints the weights in use and the refitted ones;
// nothing is written: the rounded weights are copied into outlier-model.ts by hand, then fit-self.ts refits the
// self-classified terms on top of them.
// Run: npx tsx bench/quality/fit-public.ts   Knobs above, and QUALITY_RIDGE (default 1e-3), QUALITY_SHARE (0.1),
//   QUALITY_ROWS_CACHE=file (keep the collected inputs there and reuse them: judging another model form takes seconds),
//   QUALITY_DROP=feature,… (those signals read as 0 for the fit: the same refit without a term, to see what it adds).
import fs from 'node:fs';
import {
  OUTLIER_FEATURES,
  OUTLIER_WEIGHTS,
  outlierScore,
  outlierSignals,
  type OutlierInput,
} from '../../src/modules/metrics/outlier-model.js';
import { ERROR_MODES, seededErrors, type ErrorMode } from './catalog.js';
import { fitLogistic, linearPredictor } from './logistic.js';
import { auroc, precisionAtK } from './measures.js';
import type { Half } from '../classify/sets.js';
import { publicCatalog } from './public-catalog.js';
import { importLabelled, loggedFlippedCatalog, openQualityApp } from './setup.js';

const seeds = (v: string | undefined, d: string): number[] => (v ?? d).split(',').map(Number);
const TUNING = seeds(process.env.QUALITY_TUNING, '11,12,13');
const JUDGE = seeds(process.env.QUALITY_JUDGE, '7,8');
const RIDGE = Number(process.env.QUALITY_RIDGE ?? 1e-3);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);
/** QUALITY_ROWS_CACHE=file: the collected model inputs are written there, and read from there on the next run. */
const CACHE = process.env.QUALITY_ROWS_CACHE;
/** QUALITY_DROP: features left out of the fit (their signal set to 0, so their fitted weight is 0). */
const DROP = new Set((process.env.QUALITY_DROP ?? '').split(',').filter((f) => f !== ''));
for (const f of DROP)
  if (!(OUTLIER_FEATURES as readonly string[]).includes(f)) throw new Error(`QUALITY_DROP: no feature ${f}`);
/** Modes of the generated catalog (all five, as fit.ts fitted them; `small` carries classifierOtherAlone). */
const MODES: ErrorMode[] = [...ERROR_MODES];
/** Modes of the public schemas (their `small` mode is a 300-field draw of the same fields). */
const PUBLIC_MODES: ErrorMode[] = ['random', 'sibling', 'systematic', 'level'];
/**
 * Modes fitted on. Not `level` by default: every correct field of this catalog sits at its tag's default level, so
 * there a level off the default is the seeded error itself, which a real catalog's legitimate overrides are not (the
 * weights of the level terms would learn the construction: fitted with it, the level mode reads 1.000).
 */
const FIT_MODES = (process.env.QUALITY_FIT_MODES ?? 'random,sibling,systematic').split(',') as ErrorMode[];

/** The generated catalog (fit.ts's): its tuning seeds join the fit, its judging seeds are only judged. */
const pairs = (v: string | undefined, d: string): Array<[number, number]> =>
  (v ?? d).split(',').map((p) => p.split('/').map(Number) as [number, number]);
const GENERATED_TUNING = pairs(process.env.QUALITY_GENERATED_TUNING, '1/7,2/12,3/13');
const GENERATED_JUDGE = pairs(process.env.QUALITY_GENERATED_JUDGE, '4/14,5/15');

interface Row {
  set: 'public' | 'generated';
  mode: ErrorMode;
  seed: number;
  half: Half;
  group: string;
  input: OutlierInput;
  x: number[];
  y: boolean;
}

const { fields: catalog, half } = publicCatalog();

function rowOf(
  set: Row['set'],
  mode: ErrorMode,
  seed: number,
  h: Row['half'],
  group: string,
  input: OutlierInput,
  y: boolean,
): Row {
  const signals = outlierSignals(input);
  return { set, mode, seed, half: h, group, input, x: OUTLIER_FEATURES.map((k) => (DROP.has(k) ? 0 : signals[k])), y };
}

async function collectPublic(mode: ErrorMode, seed: number): Promise<Row[]> {
  const { fields, flipped } = seededErrors(catalog, mode, SHARE, seed);
  const { app, database, close } = await openQualityApp((worker) => (worker.featureLog = new Map()));
  try {
    const { ids } = await importLabelled(app, database, fields);
    await app.services.metricsWorker.drain(600_000);
    const log = app.services.metricsWorker.featureLog as Map<string, OutlierInput>;
    return fields.map((f, i) =>
      rowOf(
        'public',
        mode,
        seed,
        half.get(f.datasource) as Row['half'],
        f.datasource.split('-')[0] as string,
        log.get(ids[i]!) as OutlierInput,
        flipped[i] as boolean,
      ),
    );
  } finally {
    await close();
  }
}

/** A generated catalog: `development` for a tuning seed, `held-out` for a judging one. */
async function collectGenerated(mode: ErrorMode, [seed, flipSeed]: [number, number], h: Row['half']): Promise<Row[]> {
  const { inputs, flipped } = await loggedFlippedCatalog(seed, flipSeed, SHARE, mode);
  return inputs.map((input, i) => rowOf('generated', mode, seed, h, `generated ${seed}`, input, flipped[i] as boolean));
}

const judge = (scores: number[], y: boolean[]): string =>
  `${auroc(scores, y).toFixed(3)} / ${precisionAtK(scores, y, y.filter(Boolean).length).toFixed(3)}`;

let rows: Row[] = [];
if (CACHE && fs.existsSync(CACHE)) rows = JSON.parse(fs.readFileSync(CACHE, 'utf8')) as Row[];
else {
  for (const mode of MODES) {
    if (PUBLIC_MODES.includes(mode))
      for (const seed of [...new Set([...TUNING, ...JUDGE])]) rows.push(...(await collectPublic(mode, seed)));
    for (const p of GENERATED_TUNING) rows.push(...(await collectGenerated(mode, p, 'development')));
    for (const p of GENERATED_JUDGE) rows.push(...(await collectGenerated(mode, p, 'held-out')));
  }
  if (CACHE) fs.writeFileSync(CACHE, JSON.stringify(rows));
}
// Features as outlierSignals reads them now (a cached input is read again with the current code).
rows = rows.map((r) => rowOf(r.set, r.mode, r.seed, r.half, r.group, r.input, r.y));

const tuning = rows.filter(
  (r) => r.half === 'development' && (r.set === 'generated' || (TUNING.includes(r.seed) && FIT_MODES.includes(r.mode))),
);
const fitted = fitLogistic(
  tuning.map((r) => r.x),
  tuning.map((r) => r.y),
  RIDGE,
);
const inUse = [OUTLIER_WEIGHTS.intercept, ...OUTLIER_FEATURES.map((f) => OUTLIER_WEIGHTS[f])];

console.log(
  `fitted on ${tuning.length} fields: the public development half (flip seeds ${TUNING.join(', ')}, ${FIT_MODES.join(', ')}) and the generated catalog's tuning seeds (${MODES.join(', ')})`,
);
console.log(
  `weights: ${['intercept', ...OUTLIER_FEATURES].map((n, k) => `${n} ${inUse[k]!.toFixed(2)} → ${fitted[k]!.toFixed(2)}`).join(', ')}`,
);
console.log('| set | mode | half | in use: AUROC / P@k | refitted: AUROC / P@k |');
console.log('|---|---|---|---|---|');
for (const set of ['public', 'generated'] as const)
  for (const mode of MODES)
    for (const h of ['development', 'held-out'] as const) {
      const part = rows.filter(
        (r) => r.set === set && r.mode === mode && r.half === h && (set === 'generated' || JUDGE.includes(r.seed)),
      );
      const y = part.map((r) => r.y);
      if (part.length === 0) continue;
      console.log(
        `| ${set} | ${mode} | ${h === 'held-out' ? '**held-out**' : h} | ${judge(
          part.map((r) => outlierScore(r.input)),
          y,
        )} | ${judge(
          part.map((r) => linearPredictor(fitted, r.x)),
          y,
        )} |`,
      );
    }

// Leave one schema group out of the development half: fitted without the group, judged on it (tuning seeds).
const groups = [...new Set(tuning.filter((r) => r.set === 'public').map((r) => r.group))].sort();
console.log(
  '\nleave-one-schema-group-out, development half (tuning seeds): group, fields, in use → refitted without it',
);
for (const g of groups) {
  const w = fitLogistic(
    tuning.filter((r) => r.group !== g).map((r) => r.x),
    tuning.filter((r) => r.group !== g).map((r) => r.y),
    RIDGE,
  );
  const part = tuning.filter((r) => r.group === g);
  const y = part.map((r) => r.y);
  if (!y.some(Boolean)) continue;
  console.log(
    `  ${g}: ${part.length}, ${judge(
      part.map((r) => outlierScore(r.input)),
      y,
    )} → ${judge(
      part.map((r) => linearPredictor(w, r.x)),
      y,
    )}`,
  );
}
