// Quality benchmark (METRICS.md "Quality"): the labelled catalog with a seeded 10% of labels flipped to another
// top-level group, imported through the real FieldsService on a temporary SQLite database; after the metrics
// worker drains, embedding-minibars are read for every field and outlier_score is judged by AUROC and precision@k
// (k = number flipped) against the similarity-weighted kNN label-disagreement baseline (k = 10) on the same embeddings.
// Run: npx tsx bench/quality/run.ts   Knobs: QUALITY_SEED (default 1), QUALITY_FLIP_SEED (default 7), QUALITY_SHARE (0.1).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { decodeVector, openDatabase } from '../../src/db/database.js';
import { SYSTEM_ACTOR } from '../../src/modules/audit/audit.service.js';
import { auroc, knnDisagreementBaseline, precisionAtK } from '../../src/modules/metrics/metrics.math.js';
import { buildQualityCatalog, seededFlips, type LabelledField } from './catalog.js';

const SEED = Number(process.env.QUALITY_SEED ?? 1);
const FLIP_SEED = Number(process.env.QUALITY_FLIP_SEED ?? 7);
const SHARE = Number(process.env.QUALITY_SHARE ?? 0.1);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-quality-'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'q.db')}`, FIELDLENS_SAMPLE_DATA: 'off', FIELDLENS_ADMIN_PASSWORD: 'quality-bench-passphrase-0001', LOG_LEVEL: 'warn' });
  const database = openDatabase(config.database);
  const app = await buildApp({ config, database, logStream: pino.destination(2) });
  try {
    const catalog = buildQualityCatalog(SEED);
    const { fields, flipped } = seededFlips(catalog, SHARE, FLIP_SEED);
    const bySource = new Map<string, Array<{ f: LabelledField; i: number }>>();
    fields.forEach((f, i) => bySource.set(f.datasource, [...(bySource.get(f.datasource) ?? []), { f, i }]));
    const ids: string[] = new Array<string>(fields.length);
    const t0 = performance.now();
    for (const [name, list] of bySource) {
      // Data sources inserted directly as sample sources so the trial's quota of 3 does not apply; fields go through the service.
      const id = randomUUID();
      const now = new Date().toISOString();
      await database.db.insertInto('datasources').values({ id, name, type: 'postgresql', description: null, is_sample: 1, created_at: now, updated_at: now }).execute();
      for (let s = 0; s < list.length; s += 5000) {
        const part = list.slice(s, s + 5000);
        const res = await app.services.fields.importFields(SYSTEM_ACTOR, {
          datasource_id: id,
          fields: part.map(({ f }) => ({
            table_name: f.table_name,
            field_name: f.field_name,
            data_type: f.data_type,
            ...(f.comment ? { comment: f.comment } : {}),
            ...(f.sample_values ? { sample_values: f.sample_values } : {}),
            classification_chain_path: f.chain_path,
            level: f.level,
          })),
        });
        res.field_ids.forEach((fid, j) => (ids[part[j]!.i] = fid));
      }
    }
    const t1 = performance.now();
    await app.services.metrics.drain();
    const t2 = performance.now();

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
    console.log(`catalog seed ${SEED}, flip seed ${FLIP_SEED}: ${fields.length} fields, ${bySource.size} data sources, ${k} flipped (${(SHARE * 100).toFixed(0)}%)`);
    console.log(`import ${((t1 - t0) / 1000).toFixed(1)} s, metrics drain ${((t2 - t1) / 1000).toFixed(1)} s`);
    console.log(`outlier_score      AUROC ${fmt(auroc(outlier, flipped))}  precision@${k} ${fmt(precisionAtK(outlier, flipped, k))}`);
    console.log(`kNN baseline k=10  AUROC ${fmt(auroc(baseline, flipped))}  precision@${k} ${fmt(precisionAtK(baseline, flipped, k))}`);
    console.log(`severity: ${bySeverity('high')}; ${bySeverity('medium')}; ${bySeverity('low')}`);
  } finally {
    await app.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
