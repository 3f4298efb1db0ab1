// Quality benchmark on schemas the outlier model was not written against (issue 25): the labelled public schemas of
// bench/classify/public (each schema one data source, its label as the imported classification at the tag's default
// level), with a seeded 10 % of errors of each mode (random, sibling, systematic, level, small — the same seeding as
// run.ts), imported through the real FieldsService, the metrics worker drained, then per half of bench/classify's hash
// split (development: the self-classified terms and, on other flip seeds, the import-label weights (fit-public.ts)
// were fitted there; held-out: nothing was ever fitted or written against it): outlier AUROC and precision@k, what the six bars say on their own, and on the held-out half the spread
// over its schemas (each schema left out of every fit: its own AUROC, for the schemas with at least 5 errors).
// Run: npx tsx bench/quality/public-seeded.ts   Knobs: QUALITY_FLIP_SEED (default 7), QUALITY_SHARE (0.1),
// QUALITY_MODES (comma list, default all five).
import { ERROR_MODES, seededErrors, type ErrorMode, type LabelledField } from './catalog.js';
import type { Half } from '../classify/sets.js';
import { publicCatalog } from './public-catalog.js';
import { auroc, axesFigures, formatAxesFigures, precisionAtK } from './measures.js';
import { importLabelled, openQualityApp } from './setup.js';

const FLIP_SEED = Number(process.env.QUALITY_FLIP_SEED ?? 7);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);
const MODES = (process.env.QUALITY_MODES ?? ERROR_MODES.join(',')).split(',') as ErrorMode[];

const fmt = (x: number): string => (Number.isNaN(x) ? '—' : x.toFixed(3));

async function runMode(mode: ErrorMode, catalog: LabelledField[], halfOf: Map<string, Half>): Promise<void> {
  const { fields, flipped } = seededErrors(catalog, mode, SHARE, FLIP_SEED);
  const { app, database, close } = await openQualityApp();
  try {
    const t0 = performance.now();
    const { ids, dataSources } = await importLabelled(app, database, fields);
    const bySource = new Map<string, number[]>();
    fields.forEach((f, i) => bySource.set(f.datasource, [...(bySource.get(f.datasource) ?? []), i]));
    await app.services.metricsWorker.drain(600_000);
    const seconds = (performance.now() - t0) / 1000;
    const outlier = new Array<number>(fields.length);
    const bars = new Array<Record<string, number>>(fields.length);
    const pos = new Map(ids.map((id, i) => [id, i]));
    for (let s = 0; s < ids.length; s += 500) {
      const res = await app.services.metrics.minibars({ field_ids: ids.slice(s, s + 500) });
      for (const item of res.items) {
        outlier[pos.get(item.field_id) as number] = item.outlier_score;
        bars[pos.get(item.field_id) as number] = item.scores;
      }
    }
    console.log(
      `[${mode}] ${fields.length} fields of ${dataSources} public schemas, ${flipped.filter(Boolean).length} errors; imported and drained in ${seconds.toFixed(0)} s`,
    );
    for (const half of ['development', 'held-out', 'fresh'] as const) {
      const idx = fields.map((f, i) => (halfOf.get(f.datasource) === half ? i : -1)).filter((i) => i >= 0);
      if (idx.length === 0) continue;
      const y = idx.map((i) => flipped[i] as boolean);
      const s = idx.map((i) => outlier[i] as number);
      const k = y.filter(Boolean).length;
      console.log(
        `[${mode}]   ${half}: ${idx.length} fields, ${k} errors; outlier AUROC ${fmt(auroc(s, y))} P@k ${fmt(precisionAtK(s, y, k))}; ${formatAxesFigures(
          axesFigures(
            idx.map((i) => bars[i] as Record<string, number>),
            y,
          ),
        )}`,
      );
      if (half === 'development') continue;
      const perSchema = [...bySource.entries()]
        .filter(([source]) => halfOf.get(source) === half)
        .flatMap(([source, list]) => {
          const errors = list.filter((i) => flipped[i]).length;
          if (errors < 5 || errors === list.length) return [];
          return [
            {
              source,
              auroc: auroc(
                list.map((i) => outlier[i] as number),
                list.map((i) => flipped[i] as boolean),
              ),
            },
          ];
        })
        .sort((a, b) => a.auroc - b.auroc);
      if (perSchema.length > 0) {
        const median = perSchema[Math.floor(perSchema.length / 2)] as { auroc: number };
        console.log(
          `[${mode}]   ${half} schemas (each never fitted on) with ≥ 5 errors: ${perSchema.length}; outlier AUROC worst ${perSchema[0]?.source} ${fmt(perSchema[0]?.auroc ?? Number.NaN)}, median ${fmt(median.auroc)}, best ${fmt(perSchema.at(-1)?.auroc ?? Number.NaN)}`,
        );
      }
    }
  } finally {
    await close();
  }
}

const { fields, half } = publicCatalog();
for (const mode of MODES) await runMode(mode, fields, half);
