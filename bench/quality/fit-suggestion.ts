// Fits the suggestion confidence (docs/metrics.md, "Suggested classification"): the calibrated probability that a
// reviewer accepts a suggestion. The catalog is the labelled public schemas as the classifier leaves them
// (self-classified.ts), before and after a seeded third of its mistakes is corrected; a suggestion counts as right when
// its tag is one the field's label accepts and its level is within one step of the label's. A logistic model —
// an intercept per source of the suggestion (`by`), logit(outlier score), the suggestion's share of the support — is
// fitted on the DEVELOPMENT half only; the held-out half is only read, to print the reliability per confidence bucket
// (observed share right vs mean confidence) before and after.
// Run: npx tsx bench/quality/fit-suggestion.ts   Knob: QUALITY_CORRECT_SEED (default 25).
import { suggestionConfidence, type Suggestion } from '../../src/modules/metrics/suggestion.js';
import { fitLogistic } from './logistic.js';
import {
  drawCorrections,
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
];
interface Row {
  half: Half;
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

const catalog = await importSelfClassified({ record: true });
try {
  const { fields, rank } = catalog;
  const log = catalog.suggestionLog as Map<string, { by: string; score: number; share: number }>;
  const before = await catalog.read();
  const beforeRows = rowsOf(fields, before, log, rank, new Set());
  const wrong = fields.filter((f) => {
    const s = before.get(f.id) as FieldState;
    return isWrong(f, s.tagPath, s.level, rank);
  });
  const corrected = drawCorrections(wrong, seed);
  await catalog.correct([...corrected]);
  const after = await catalog.read();
  const afterRows = rowsOf(fields, after, log, rank, corrected);

  const dev = [...beforeRows, ...afterRows].filter((r) => r.half === 'development');
  const present = SOURCES.filter((by) => dev.some((r) => r.by === by));
  // logit(score), share, then one indicator per source but the first present (its intercept is the model's).
  const x = (r: Row): number[] => [logit(r.score), r.share, ...present.slice(1).map((by) => (r.by === by ? 1 : 0))];
  const w = fitLogistic(
    dev.map(x),
    dev.map((r) => r.right),
    1e-2,
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
