// Catalog import benchmark: 100k fields through FieldsService.importFields (batches of 5000) on SQLite
// and, when BENCH_DATABASE_URL or TEST_DATABASE_URL is set, on PostgreSQL (in a throw-away schema);
// embedding throughput on the same inputs; RSS/heap growth per stored field; shipped vector file size.
// Run: node --expose-gc --import tsx bench/import.ts   (optional: BENCH_FIELDS=20000)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { loadConfig, type DatabaseConfig } from '../src/config.js';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.js';
import { createEmbedder } from '../src/embeddings/embedder.js';
import { wordVectorFileSize } from '../src/embeddings/word-vectors.js';
import type { Caller } from '../src/http/access.js';
import type { ImportFieldItem } from '../src/modules/fields/fields.schemas.js';
import { loadSampleCatalog } from '../src/modules/sample-data/sample-catalog.js';
import { createServices } from '../src/services.js';

const TOTAL = Number(process.env.BENCH_FIELDS ?? 100_000);
const BATCH = 5000;
const caller: Caller = {
  id: 'bench',
  username: 'bench',
  email: 'bench@localhost',
  roles: ['superadmin'],
  requestId: 'bench-import',
};

// Deterministic variety: sample catalog names × schema-style suffixes × many tables; half classified by path, half automatically.
const SUFFIXES = [
  '',
  '_old',
  '_new',
  '_tmp',
  '_src',
  '_prev',
  '_orig',
  '_bak',
  '_v2',
  '_raw',
  '_norm',
  '_hist',
  '_ext',
  '_alt',
  '_final',
];
function generate(n: number): ImportFieldItem[] {
  const base = loadSampleCatalog().datasources.flatMap((s) =>
    s.fields.map((f) => ({ ...f, table_name: `${s.name}_${f.table_name}` })),
  );
  const out: ImportFieldItem[] = [];
  for (let i = 0; i < n; i++) {
    const f = base[i % base.length]!;
    const round = Math.floor(i / base.length);
    out.push({
      table_name: `${f.table_name}_${Math.floor(round / SUFFIXES.length)}`,
      field_name: `${f.field_name}${SUFFIXES[round % SUFFIXES.length]}`,
      data_type: f.data_type,
      comment: f.comment ?? null,
      ...(f.sample_values ? { sample_values: f.sample_values } : {}),
      ...(i % 2 === 0 ? { classification_chain_path: f.classification_chain_path, level: f.level } : {}),
    });
  }
  return out;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function memory(): { rss: number; heap: number } {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed };
}

async function benchImport(
  label: string,
  dbConfig: DatabaseConfig,
  schema?: string,
): Promise<Record<string, string | number>> {
  const database: Database = openDatabase(dbConfig, schema ? { schema, poolSize: 5 } : {});
  try {
    await migrateToLatest(database);
    const config = loadConfig({ FIELDLENS_SAMPLE_DATA: 'off', FIELDLENS_ADMIN_PASSWORD: 'bench-passphrase-0001-long' });
    const services = await createServices({
      config: { ...config, database: dbConfig },
      database,
      clock: systemClock,
      log: pino({ level: 'warn' }),
    });
    await services.bootstrap();
    const source = await services.datasources.createDatasource(caller, { name: `bench-${label}`, type: 'postgresql' });
    const items = generate(TOTAL);
    const before = memory();
    const started = performance.now();
    let worst = 0;
    for (let start = 0; start < items.length; start += BATCH) {
      const t0 = performance.now();
      await services.fields.importFields(caller, {
        datasource_id: source.id,
        fields: items.slice(start, start + BATCH),
      });
      worst = Math.max(worst, performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    const afterMem = memory();
    // Re-import the first batch: the upsert path on existing rows.
    const t1 = performance.now();
    await services.fields.importFields(caller, { datasource_id: source.id, fields: items.slice(0, BATCH) });
    const reimportMs = performance.now() - t1;
    await services.stop();
    return {
      database: label,
      fields: TOTAL,
      'fields/s': Math.round(TOTAL / seconds),
      'total s': Number(seconds.toFixed(1)),
      'slowest batch of 5000 (ms)': Math.round(worst),
      're-import 5000 existing (ms)': Math.round(reimportMs),
      'RSS bytes/field': Math.round((afterMem.rss - before.rss) / TOTAL),
      'heap bytes/field': Math.round((afterMem.heap - before.heap) / TOTAL),
    };
  } finally {
    await database.close();
  }
}

async function benchEmbedding(): Promise<Record<string, string | number>> {
  const embedder = createEmbedder({ provider: 'builtin' });
  const inputs = generate(TOTAL).map((f) => ({
    table_name: f.table_name,
    field_name: f.field_name,
    comment: f.comment ?? null,
    data_type: f.data_type ?? null,
    format_signature: null,
  }));
  const t0 = performance.now();
  for (let start = 0; start < inputs.length; start += BATCH)
    await embedder.embedFields(inputs.slice(start, start + BATCH));
  const seconds = (performance.now() - t0) / 1000;
  return {
    embedder: embedder.version,
    fields: TOTAL,
    'fields/s': Math.round(TOTAL / seconds),
    dimensions: embedder.dimensions,
    'stored bytes/field (embedding)': embedder.dimensions * 4,
  };
}

const results: Array<Record<string, string | number>> = [];
results.push(await benchEmbedding());

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-'));
try {
  results.push(await benchImport('sqlite', { kind: 'sqlite', file: path.join(dir, 'bench.db') }));
  const file = path.join(dir, 'bench.db');
  results.push({ database: 'sqlite', 'database file bytes/field': Math.round(fs.statSync(file).size / TOTAL) });
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (pgUrl) {
  const schema = `fl_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    results.push(await benchImport('postgres', { kind: 'postgres', url: pgUrl }, schema));
  } finally {
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}

console.log(
  JSON.stringify(
    {
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        node: process.version,
        platform: `${os.platform()} ${os.release()}`,
      },
      vector_file_bytes: wordVectorFileSize(),
      results,
    },
    null,
    2,
  ),
);
