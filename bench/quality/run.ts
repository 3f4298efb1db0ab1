// Quality benchmark (METRICS.md "Quality", docs/metrics.md "Quality"): the labelled catalog with a seeded 10% of
// errors of each mode (random, sibling, systematic, level, small), imported through the real FieldsService on a
// temporary SQLite database; after the metrics worker drains, embedding-minibars are read for every field and
// outlier_score is judged by AUROC and precision@k (k = number of errors) against the similarity-weighted kNN
// label-disagreement baseline (k = 10; a label is tag and level) on the same embeddings.
// Run: npx tsx bench/quality/run.ts   Knobs: QUALITY_SEED (default 1), QUALITY_FLIP_SEED (default 7), QUALITY_SHARE (0.1),
// QUALITY_MODES (comma list, default all five).
import { decodeVector } from '../../src/db/database.js';
import { ERROR_MODES, type ErrorMode } from './catalog.js';
import { auroc, axesFigures, formatAxesFigures, knnDisagreementBaseline, precisionAtK } from './measures.js';
import { importFlippedCatalog } from './setup.js';

const SEED = Number(process.env.QUALITY_SEED ?? 1);
const FLIP_SEED = Number(process.env.QUALITY_FLIP_SEED ?? 7);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);
const MODES = (process.env.QUALITY_MODES ?? ERROR_MODES.join(',')).split(',') as ErrorMode[];

async function runMode(mode: ErrorMode): Promise<void> {
  const { app, database, fields, flipped, ids, dataSources, importSeconds, drainSeconds, close } =
    await importFlippedCatalog(SEED, FLIP_SEED, SHARE, mode);
  try {
    const outlier: number[] = new Array<number>(fields.length);
    const severity: string[] = new Array<string>(fields.length);
    const axisScores: Array<Record<string, number>> = new Array<Record<string, number>>(fields.length);
    const pos = new Map(ids.map((id, i) => [id, i]));
    for (let s = 0; s < ids.length; s += 500) {
      const res = await app.services.metrics.minibars({ field_ids: ids.slice(s, s + 500) });
      for (const item of res.items) {
        outlier[pos.get(item.field_id)!] = item.outlier_score;
        severity[pos.get(item.field_id)!] = item.severity;
        axisScores[pos.get(item.field_id)!] = item.scores;
      }
    }
    const rows = await database.db.selectFrom('fields').select(['id', 'embedding', 'tag_id', 'level']).execute();
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const vectors = ids.map((id) => decodeVector(rowById.get(id)!.embedding!));
    // The baseline's label is the whole classification: tag and level.
    const labels = new Map<string, number>();
    const classes = ids.map((id) => {
      const key = `${rowById.get(id)!.tag_id}/${rowById.get(id)!.level}`;
      if (!labels.has(key)) labels.set(key, labels.size);
      return labels.get(key)!;
    });
    const baseline = knnDisagreementBaseline(vectors, classes, 10);

    const k = flipped.filter(Boolean).length;
    const fmt = (x: number): string => x.toFixed(3);
    const bySeverity = (s: string): string => {
      const idx = severity.map((v, i) => (v === s ? i : -1)).filter((i) => i >= 0);
      const bad = idx.filter((i) => flipped[i]).length;
      return `${s} ${idx.length} (${idx.length ? ((100 * bad) / idx.length).toFixed(0) : 0}% errors)`;
    };
    console.log(
      `[${mode}] catalog seed ${SEED}, flip seed ${FLIP_SEED}: ${fields.length} fields, ${dataSources} data sources, ${k} errors; import ${importSeconds.toFixed(1)} s, drain ${drainSeconds.toFixed(1)} s`,
    );
    console.log(
      `[${mode}]   outlier_score AUROC ${fmt(auroc(outlier, flipped))} P@${k} ${fmt(precisionAtK(outlier, flipped, k))} | kNN baseline AUROC ${fmt(auroc(baseline, flipped))} P@${k} ${fmt(precisionAtK(baseline, flipped, k))}`,
    );
    console.log(`[${mode}]   axes: ${formatAxesFigures(axesFigures(axisScores, flipped))}`);
    console.log(`[${mode}]   severity: ${bySeverity('high')}; ${bySeverity('medium')}; ${bySeverity('low')}`);
  } finally {
    await close();
  }
}

for (const mode of MODES) await runMode(mode);
