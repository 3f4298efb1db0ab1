// Quality benchmark (METRICS.md "Quality"): the labelled catalog with a seeded 10% of labels flipped to another
// top-level group, imported through the real FieldsService on a temporary SQLite database; after the metrics
// worker drains, embedding-minibars are read for every field and outlier_score is judged by AUROC and precision@k
// (k = number flipped) against the similarity-weighted kNN label-disagreement baseline (k = 10) on the same embeddings.
// Run: npx tsx bench/quality/run.ts   Knobs: QUALITY_SEED (default 1), QUALITY_FLIP_SEED (default 7), QUALITY_SHARE (0.1).
import { decodeVector } from '../../src/db/database.js';
import { auroc, knnDisagreementBaseline, precisionAtK } from './measures.js';
import { importFlippedCatalog } from './setup.js';

const SEED = Number(process.env.QUALITY_SEED ?? 1);
const FLIP_SEED = Number(process.env.QUALITY_FLIP_SEED ?? 7);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);

async function main(): Promise<void> {
  const { app, database, fields, flipped, ids, dataSources, importSeconds, drainSeconds, close } = await importFlippedCatalog(SEED, FLIP_SEED, SHARE);
  try {
    const outlier: number[] = new Array<number>(fields.length);
    const severity: string[] = new Array<string>(fields.length);
    const pos = new Map(ids.map((id, i) => [id, i]));
    for (let s = 0; s < ids.length; s += 500) {
      const res = await app.services.metrics.minibars({ field_ids: ids.slice(s, s + 500) });
      for (const item of res.items) {
        outlier[pos.get(item.field_id)!] = item.outlier_score;
        severity[pos.get(item.field_id)!] = item.severity;
      }
    }
    const rows = await database.db.selectFrom('fields').select(['id', 'embedding', 'tag_id']).execute();
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const vectors = ids.map((id) => decodeVector(rowById.get(id)!.embedding!));
    const tags = ids.map((id) => rowById.get(id)!.tag_id);
    const baseline = knnDisagreementBaseline(vectors, tags, 10);

    const k = flipped.filter(Boolean).length;
    const fmt = (x: number): string => x.toFixed(3);
    const bySeverity = (s: string): string => {
      const idx = severity.map((v, i) => (v === s ? i : -1)).filter((i) => i >= 0);
      const bad = idx.filter((i) => flipped[i]).length;
      return `${s}: ${idx.length} fields, ${idx.length ? ((100 * bad) / idx.length).toFixed(0) : 0}% flipped`;
    };
    console.log(`catalog seed ${SEED}, flip seed ${FLIP_SEED}: ${fields.length} fields, ${dataSources} data sources, ${k} flipped (${(SHARE * 100).toFixed(0)}%)`);
    console.log(`import ${importSeconds.toFixed(1)} s, metrics drain ${drainSeconds.toFixed(1)} s`);
    console.log(`outlier_score      AUROC ${fmt(auroc(outlier, flipped))}  precision@${k} ${fmt(precisionAtK(outlier, flipped, k))}`);
    console.log(`kNN baseline k=10  AUROC ${fmt(auroc(baseline, flipped))}  precision@${k} ${fmt(precisionAtK(baseline, flipped, k))}`);
    console.log(`severity: ${bySeverity('high')}; ${bySeverity('medium')}; ${bySeverity('low')}`);
  } finally {
    await close();
  }
}

await main();
