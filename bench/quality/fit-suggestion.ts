// Fits the suggestion confidence (docs/metrics.md, "Suggested classification"): the calibrated probability that a
// reviewer accepts a suggestion. The catalog is the labelled public schemas as the classifier leaves them
// (self-classified.ts), before and after a seeded third of its mistakes is corrected; a suggestion counts as right when
// its tag is one the field's label accepts and its level is within one step of the label's. A logistic model —
// an intercept per source of the suggestion (`by`), logit(outlier score), the suggestion's share of the support — is
// fitted on the DEVELOPMENT half only; the held-out half is only read, to print the reliability per confidence bucket
// (observed share right vs mean confidence) before and after.
// Run: npx tsx bench/quality/fit-suggestion.ts   Knobs: QUALITY_CORRECT_SEED (default 25); CALIBRATION_CV=1 (also
// judge model forms and ridges by leaving one development schema out at a time; CALIBRATION_RIDGES, default
// "0.01,1,3").
import { SUGGESTION_CALIBRATION, suggestionConfidence, type Suggestion } from '../../src/modules/metrics/suggestion.js';
import { fitLogistic } from './logistic.js';
import {
  correctSeededThird,
  importSelfClassified,
  isWrong,
  type FieldState,
  type Half,
  type SelfField,
} from './self-classified.js';

const seed = Number(process.env.QUALITY_CORRECT_SEED ?? 25);
const SOURCES: ReadonlyArray<Suggestion['by']> = [
  'classifier',
  'neighbours',
  'margins',
  'level',
  'twin',
  'corrections',
  'pattern',
];
interface Row {
  half: Half;
  source: string;
  stage?: string;
  by: Suggestion['by'];
  score: number;
  share: number;
  stored: number;
  right: boolean;
}
const logit = (p: number): number => {
  const r = Math.min(0.999, Math.max(0.001, p));
  return Math.log(r / (1 - r));
};

function rowsOf(
  fields: readonly SelfField[],
  state: Map<string, FieldState>,
  log: Map<string, { by: string; score: number; share: number }>,
  rank: (l: string) => number,
  skip: ReadonlySet<string>,
): Row[] {
  return fields.flatMap((f) => {
    const s = state.get(f.id) as FieldState;
    const l = log.get(f.id);
    if (skip.has(f.id) || s.suggestedPath === null || s.suggestedLevel === null || !l) return [];
    return [
      {
        half: f.half,
        source: f.source,
        by: l.by as Suggestion['by'],
        score: l.score,
        share: l.share,
        stored: s.suggestedConfidence ?? Number.NaN,
        right: !isWrong(f, s.suggestedPath, s.suggestedLevel, rank),
      },
    ];
  });
}

function reliability(title: string, rows: readonly Row[], p: (r: Row) => number): void {
  const buckets = [0, 0.2, 0.4, 0.6, 0.8, 1.0001];
  const cells: string[] = [];
  let worst = 0;
  for (let b = 0; b + 1 < buckets.length; b++) {
    const inBucket = rows.filter((r) => p(r) >= (buckets[b] as number) && p(r) < (buckets[b + 1] as number));
    if (inBucket.length === 0) continue;
    const mean = inBucket.reduce((s, r) => s + p(r), 0) / inBucket.length;
    const observed = inBucket.filter((r) => r.right).length / inBucket.length;
    if (inBucket.length >= 20) worst = Math.max(worst, Math.abs(mean - observed));
    cells.push(
      `[${buckets[b]!.toFixed(1)}, ${Math.min(1, buckets[b + 1]!).toFixed(1)}): n ${inBucket.length}, mean ${mean.toFixed(2)}, right ${observed.toFixed(2)}`,
    );
  }
  const right = rows.filter((r) => r.right).length;
  console.log(
    `${title}: ${rows.length} suggestions, ${right} right (${((100 * right) / Math.max(rows.length, 1)).toFixed(0)} %); worst gap over buckets of ≥ 20: ${(100 * worst).toFixed(1)} points`,
  );
  for (const c of cells) console.log(`    ${c}`);
}

/** Worst gap over buckets of ≥ 20 and the expected calibration error (count-weighted mean gap), of (p, right) pairs. */
function gaps(pairs: ReadonlyArray<[number, boolean]>): { worst: number; ece: number } {
  const edges = [0, 0.2, 0.4, 0.6, 0.8, 1.0001];
  let worst = 0;
  let ece = 0;
  for (let b = 0; b + 1 < edges.length; b++) {
    const inB = pairs.filter(([p]) => p >= (edges[b] as number) && p < (edges[b + 1] as number));
    if (inB.length === 0) continue;
    const gap = Math.abs(inB.reduce((a, [p]) => a + p, 0) / inB.length - inB.filter(([, y]) => y).length / inB.length);
    if (inB.length >= 20) worst = Math.max(worst, gap);
    ece += (gap * inB.length) / pairs.length;
  }
  return { worst, ece };
}

/**
 * Variants of the confidence model, each judged on the development half by leaving one schema out at a time (its
 * suggestions' confidences from a fit on the other schemas): which form holds on schemas it was not fitted on.
 */
function crossValidate(dev: readonly Row[]): void {
  const bys = SOURCES.filter((by) => dev.some((r) => r.by === by));
  const ind = (r: Row): number[] => bys.slice(1).map((by) => (r.by === by ? 1 : 0));
  const variants: Record<string, (r: Row) => number[]> = {
    'by + logit(score) + share (in use)': (r) => [logit(r.score), r.share, ...ind(r)],
    'by + share': (r) => [r.share, ...ind(r)],
    'by + share + share²': (r) => [r.share, r.share * r.share, ...ind(r)],
    'by + logit(score) + share + share²': (r) => [logit(r.score), r.share, r.share * r.share, ...ind(r)],
    'by + logit(score × share)': (r) => [logit(r.score * r.share), ...ind(r)],
    'by + logit(score × share) + share': (r) => [logit(r.score * r.share), r.share, ...ind(r)],
    'by + logit(score) + logit(share)': (r) => [logit(r.score), logit(r.share), ...ind(r)],
    'share per by': (r) => [...ind(r), ...bys.map((by) => (r.by === by ? r.share : 0))],
    'logit(score) + share per by': (r) => [logit(r.score), ...ind(r), ...bys.map((by) => (r.by === by ? r.share : 0))],
  };
  const sources = [...new Set(dev.map((r) => r.source))];
  for (const [name, x] of Object.entries(variants)) {
    for (const ridge of (process.env.CALIBRATION_RIDGES ?? '0.01,1,3').split(',').map(Number)) {
      const out: Array<[number, boolean, string]> = [];
      for (const held of sources) {
        const train = dev.filter((r) => r.source !== held);
        const w = fitLogistic(
          train.map(x),
          train.map((r) => r.right),
          ridge,
        );
        for (const r of dev.filter((r) => r.source === held)) {
          const z = x(r).reduce((a, v, i) => a + v * (w[i + 1] as number), w[0] as number);
          out.push([1 / (1 + Math.exp(-z)), r.right, r.stage ?? '']);
        }
      }
      const b = gaps(out.filter(([, , st]) => st === 'before').map(([p, y]) => [p, y]));
      const a = gaps(out.filter(([, , st]) => st === 'after').map(([p, y]) => [p, y]));
      console.log(
        `CV ${name}, ridge ${ridge}: before worst ${(100 * b.worst).toFixed(1)} ECE ${(100 * b.ece).toFixed(1)}; after worst ${(100 * a.worst).toFixed(1)} ECE ${(100 * a.ece).toFixed(1)} points`,
      );
    }
  }
}

const catalog = await importSelfClassified({ record: true });
try {
  const { fields, rank } = catalog;
  const log = catalog.suggestionLog as Map<string, { by: string; score: number; share: number }>;
  const before = await catalog.read();
  const beforeRows = rowsOf(fields, before, log, rank, new Set());
  const { corrected, after } = await correctSeededThird(catalog, before, seed);
  const afterRows = rowsOf(fields, after, log, rank, corrected);

  for (const r of beforeRows) r.stage = 'before';
  for (const r of afterRows) r.stage = 'after';
  const dev = [...beforeRows, ...afterRows].filter((r) => r.half === 'development');
  if (process.env.CALIBRATION_CV === '1') crossValidate(dev);
  // CALIBRATION_ONLY=<by>: that source's intercept alone, the rest of SUGGESTION_CALIBRATION as in use (a new source
  // joins without moving the others' calibration); the intercept that makes its development suggestions' mean
  // log-loss smallest (Newton's method on one variable).
  const only = process.env.CALIBRATION_ONLY as Suggestion['by'] | undefined;
  if (only) {
    const c = SUGGESTION_CALIBRATION;
    const rest = dev
      .filter((r) => r.by === only)
      .map((r) => ({ z: c.score * logit(r.score) + c.share * r.share, y: r.right }));
    const rate = Math.min(0.99, Math.max(0.01, rest.filter((r) => r.y).length / Math.max(1, rest.length)));
    let b = Math.log(rate / (1 - rate)) - rest.reduce((a, r) => a + r.z, 0) / Math.max(1, rest.length);
    for (let it = 0; it < 50 && rest.length > 0; it++) {
      let g = 0;
      let h = 1e-9;
      for (const r of rest) {
        const p = 1 / (1 + Math.exp(-(b + r.z)));
        g += (r.y ? 1 : 0) - p;
        h += p * (1 - p);
      }
      b += Math.max(-1, Math.min(1, g / h));
    }
    console.log(
      `${only}: ${rest.length} development suggestions, ${rest.filter((r) => r.y).length} right; intercept ${b.toFixed(3)}`,
    );
  }
  const present = SOURCES.filter((by) => dev.some((r) => r.by === by));
  // logit(score), share, then one indicator per source but the first present (its intercept is the model's).
  const x = (r: Row): number[] => [logit(r.score), r.share, ...present.slice(1).map((by) => (r.by === by ? 1 : 0))];
  // Ridge 3 (on the summed log-loss): chosen by CALIBRATION_CV=1 — leaving one development schema out at a time, it
  // gave the smallest calibration gaps of 0.01–30 (the per-source intercepts of rare sources, twins and levels, shrunk
  // towards the rest instead of taken at their few development cases).
  const w = fitLogistic(
    dev.map(x),
    dev.map((r) => r.right),
    3,
  );
  const intercept = Object.fromEntries(
    SOURCES.map((by) => [
      by,
      (w[0] as number) + (present.indexOf(by) > 0 ? (w[2 + present.indexOf(by)] as number) : 0),
    ]),
  ) as Record<Suggestion['by'], number>;
  console.log(
    `fitted on ${dev.length} development suggestions: score ${(w[1] as number).toFixed(3)}, share ${(w[2] as number).toFixed(3)}; intercepts ${SOURCES.map((by) => `${by} ${intercept[by].toFixed(3)}${present.includes(by) ? '' : ' (none seen: the base)'}`).join(', ')}`,
  );
  const fitted = (r: Row): number =>
    1 / (1 + Math.exp(-(intercept[r.by] + (w[1] as number) * logit(r.score) + (w[2] as number) * r.share)));
  for (const [stage, rows] of [
    ['before corrections', beforeRows],
    ['after corrections', afterRows],
  ] as const) {
    const part = rows.filter((r) => r.half === 'development');
    console.log(
      `development, ${stage}, by source (n, mean confidence in use → share right): ${SOURCES.filter((by) =>
        part.some((r) => r.by === by),
      )
        .map((by) => {
          const b = part.filter((r) => r.by === by);
          const mean = b.reduce((sum, r) => sum + suggestionConfidence(r.score, r.share, r.by), 0) / b.length;
          return `${by} ${b.length}, ${mean.toFixed(2)} → ${(b.filter((r) => r.right).length / b.length).toFixed(2)}`;
        })
        .join('; ')}`,
    );
  }
  for (const half of ['development', 'held-out'] as const) {
    for (const [stage, rows] of [
      ['before corrections', beforeRows],
      ['after corrections', afterRows],
    ] as const) {
      const part = rows.filter((r) => r.half === half);
      reliability(`${half}, ${stage}, the outlier score (the confidence before 2026-11-26)`, part, (r) => r.score);
      reliability(`${half}, ${stage}, SUGGESTION_CALIBRATION in use`, part, (r) =>
        suggestionConfidence(r.score, r.share, r.by),
      );
      reliability(`${half}, ${stage}, fitted now`, part, fitted);
    }
  }
} finally {
  await catalog.close();
}
