// Rule preview benchmark (issue 26): POST /api/v1/classification/rules/preview over a synthetic catalog of
// BENCH_FIELDS (default 100,000) fields on SQLite, bulk-inserted straight into the database with their embeddings (most of them decided by
// the classifier, so the preview reads them all; a tenth confirmed or locked, which it skips). Requests go through
// Fastify's inject (routing, validation, the SQL pages, the compiled rule, serialization; no sockets).
// Two rules: a column-name pattern alone, and a column name + table name + type family rule; then the candidate reads
// alone (the service's pages of 5,000, no rule), to show where the time goes.
//
//   npx tsx bench/rules-preview.ts      Knobs: BENCH_FIELDS, BENCH_RUNS (default 7), BENCH_KEEP=<file> (keep the database there)
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { encodeVector, openDatabase } from '../src/db/database.js';
import { mulberry32 } from './support/random.js';

const FIELDS = Number(process.env.BENCH_FIELDS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PASSWORD = 'rules-preview-bench-passphrase-01';
const NAMES = [
  'email',
  'created_at',
  'full_name',
  'id',
  'phone_number',
  'amount',
  'status',
  'customer_ref',
  'birth_date',
  'iban',
  'street',
  'treuekarte_nr',
  'postcode',
  'notes',
  'updated_by',
  'sku',
];
const TYPES = ['text', 'varchar(40)', 'integer', 'numeric(10,2)', 'timestamp', 'uuid', 'boolean', 'date'];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-preview-'));
const config = loadConfig({
  DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`,
  FIELDLENS_ADMIN_PASSWORD: PASSWORD,
  FIELDLENS_SAMPLE_DATA: 'off',
  LOG_LEVEL: 'warn',
});
const database = openDatabase(config.database);
const app = await buildApp({ config, database });
await app.services.bootstrap();
// The background workers would compete with the measurement for the one SQLite connection.
await app.services.metricsWorker.stop();
try {
  const db = database.db;
  const tags = await db.selectFrom('tags').select(['id', 'default_level']).orderBy('id').execute();
  const rng = mulberry32(26);
  const sources: string[] = [];
  const t0 = new Date('2026-01-01T00:00:00Z').toISOString();
  for (let s = 0; s < 4; s++) {
    const id = randomUUID();
    await db
      .insertInto('datasources')
      .values({
        id,
        name: `bench-${s}`,
        type: 'postgresql',
        description: null,
        is_sample: 0,
        created_at: t0,
        updated_at: t0,
      })
      .execute();
    sources.push(id);
  }
  // Every catalog field carries its embedding (stored in the row, before the columns the preview filters on): without
  // them the rows are a fraction of their real size and the reads look cheaper than they are.
  const dims = app.services.embedder.dimensions;
  const embedding = (): Uint8Array => {
    const v = Float32Array.from({ length: dims }, () => rng() - 0.5);
    const norm = Math.hypot(...v);
    return encodeVector(v.map((x) => x / norm));
  };
  const started = performance.now();
  for (let start = 0; start < FIELDS; start += 1000) {
    const rows = [];
    for (let i = start; i < Math.min(FIELDS, start + 1000); i++) {
      const t = tags[Math.floor(rng() * tags.length)]!;
      const settled = rng() < 0.1;
      rows.push({
        id: randomUUID(),
        datasource_id: sources[i % sources.length]!,
        table_name: `${i % 5 === 0 ? 'kunden' : 'schema'}_${i % 37}.table_${i % 997}`,
        field_name: `${NAMES[i % NAMES.length]}_${i}`,
        data_type: TYPES[i % TYPES.length]!,
        comment: i % 4 === 0 ? `column ${i} of the ${NAMES[i % NAMES.length]} kind` : null,
        format_signature: null,
        tag_id: t.id,
        level: t.default_level,
        locked: settled ? (1 as const) : (0 as const),
        review_status: (settled ? 'confirmed' : 'unreviewed') as 'unreviewed',
        classification_source: 'classifier' as const,
        embedding: embedding(),
        embedder_version: 'bench',
        created_at: t0,
        updated_at: t0,
      });
    }
    await db
      .insertInto('fields')
      .values(rows as never)
      .execute();
  }
  console.log(
    `${FIELDS.toLocaleString('en')} fields inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username: 'admin', password: PASSWORD },
  });
  const token = (JSON.parse(login.body) as { access_token: string }).access_token;
  const tagId = tags[0]!.id;
  const rules = {
    'column name pattern': { column_name: '^(treuekarte|bonuskarte)_?(nr|no)' },
    'column name + table name + type family': {
      column_name: 'treuekarte|iban',
      table_name: '^kunden_',
      data_type_family: ['text'],
    },
  };
  const pct = (xs: number[], p: number): number =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ${RUNS} rounds (after one warm-up), the cases interleaved in each round`,
  );
  const preview = async (match: object): Promise<number> => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/classification/rules/preview',
      headers: { authorization: `Bearer ${token}` },
      payload: { rule: { name: 'bench', tag_id: tagId, match }, limit: 20 },
    });
    if (response.statusCode !== 200) throw new Error(`preview answered ${response.statusCode}: ${response.body}`);
    return (JSON.parse(response.body) as { matched: number }).matched;
  };
  // What the preview costs without any matching: reading every candidate with its names in the service's pages.
  const readAll = async (): Promise<number> => {
    let after: string | null = null;
    let n = 0;
    for (;;) {
      const page = await app.services.fieldCatalog.ruleCandidates({
        afterId: after,
        limit: 5000,
        read: { table_name: true, comment: true },
      });
      n += page.length;
      if (page.length < 5000) break;
      after = page[page.length - 1]!.id;
    }
    return n;
  };
  const cases: Array<{ label: string; run: () => Promise<number>; times: number[]; count: number }> = [
    ...Object.entries(rules).map(([label, match]) => ({
      label,
      run: () => preview(match),
      times: [] as number[],
      count: 0,
    })),
    { label: 'reading every candidate with its names, no rule', run: readAll, times: [], count: 0 },
  ];
  // Interleaved rounds: a burst of load elsewhere on the machine hits every case alike.
  for (let r = 0; r <= RUNS; r++) {
    for (const c of cases) {
      const t = performance.now();
      c.count = await c.run();
      if (r > 0) c.times.push(performance.now() - t);
    }
  }
  console.log('| preview of | fields | p50 ms | max ms |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases)
    console.log(
      `| ${c.label} | ${c.count.toLocaleString('en')} | ${pct(c.times, 50).toFixed(0)} | ${Math.max(...c.times).toFixed(0)} |`,
    );
  console.log(
    `load after: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await app.close();
  await database.close();
  if (process.env.BENCH_KEEP) fs.renameSync(path.join(dir, 'bench.db'), process.env.BENCH_KEEP);
  fs.rmSync(dir, { recursive: true, force: true });
}
