// Field export and inventory report at scale: GET /api/v1/fields/export?format=csv of the whole catalog (target ≤ 60 s
// for 1M fields, peak RSS growth ≤ 100 MB) and GET /api/v1/reports/inventory (target ≤ 1 s at 1M fields), on a
// synthetic catalog bulk-inserted straight into the database as bench/list.ts builds it (several sources, review
// states, levels, tags, scores, suggestions, an embedding per field so rows have their real size).
// The export goes through a real socket (the server listens on 127.0.0.1, the client reads the body as it comes and
// keeps nothing), so back-pressure and memory are what a download sees; RSS is sampled every 20 ms.
// Run: npx tsx bench/export.ts   Knobs: BENCH_FIELDS (default 1,000,000), BENCH_REPORTS (inventory calls, default 10),
//   BENCH_DATABASE_URL=postgres://… (a throw-away schema, dropped afterwards; else a SQLite file),
//   BENCH_FILTERED=0 to skip the filtered exports, BENCH_SQLITE_FILE=path: keep the SQLite catalog in that file and
//   reuse it on the next run (building 1M fields takes minutes; migrations added since run on the kept file at start),
//   BENCH_ACCEPT_ENCODING=identity: ask for the export uncompressed (by default fetch asks for gzip/br and decompresses
//   in this same process, so the figures include the server's compression and the client's decompression),
//   BENCH_COMPRESSED=0: skip the gzip and Brotli exports fetched by curl (the server's compression cost alone).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { encodeVector, openDatabase } from '../src/db/database.js';
import { mulberry32, randomUnitVector } from './support/random.js';

const FIELDS = Number(process.env.BENCH_FIELDS ?? 1_000_000);
const REPORTS = Number(process.env.BENCH_REPORTS ?? 10);
const PG_URL = process.env.BENCH_DATABASE_URL;
const FILTERED = process.env.BENCH_FILTERED !== '0';
const ACCEPT_ENCODING = process.env.BENCH_ACCEPT_ENCODING;
const KEEP_FILE = PG_URL ? undefined : process.env.BENCH_SQLITE_FILE;
const reuse = KEEP_FILE !== undefined && fs.existsSync(KEEP_FILE);
const PASSWORD = 'export-bench-passphrase-of-the-boss-01';
const SOURCES = 6;
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
  'city',
  '=formula',
  'notes, free text',
  'updated_by',
  'sku',
];

const MB = 1024 * 1024;
const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const pct = (values: number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;

async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(statement);
  await client.end();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-export-'));
const pgSchema = PG_URL ? `bench_export_${randomUUID().slice(0, 8)}` : undefined;
if (pgSchema) await pgAdmin(`create schema ${pgSchema}`);
const config = loadConfig({
  DATABASE_URL: PG_URL ?? `sqlite:${KEEP_FILE ?? path.join(dir, 'bench.db')}`,
  FIELDLENS_ADMIN_PASSWORD: PASSWORD,
  FIELDLENS_SAMPLE_DATA: 'off',
  LOG_LEVEL: 'warn',
  FIELDLENS_RATE_LIMIT_PER_ADDRESS: '0',
  FIELDLENS_RATE_LIMIT_PER_USER: '0',
});
const database = openDatabase(config.database, pgSchema ? { schema: pgSchema } : {});
const app = await buildApp({ config, database });

try {
  await app.services.bootstrap();
  const db = database.db;
  const tags = await db.selectFrom('tags').select(['id', 'default_level']).orderBy('id').execute();
  const dims = app.services.embedder.dimensions;
  const rng = mulberry32(28);
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const started = performance.now();
  const sources: string[] = reuse
    ? (await db.selectFrom('datasources').select('id').orderBy('name').execute()).map((r) => r.id)
    : [];
  for (let s = 0; s < (reuse ? 0 : SOURCES); s++) {
    const id = randomUUID();
    const now = new Date(t0).toISOString();
    await db
      .insertInto('datasources')
      .values({
        id,
        name: `bench-${s}`,
        type: 'postgresql',
        description: null,
        is_sample: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    sources.push(id);
  }
  // Building: 50,000 rows a transaction and, on SQLite, a 2 GiB page cache while building (random UUID keys touch
  // pages all over the ~20 field indexes; with the service's 64 MiB cache the build ran at ~16,000 rows a minute at
  // 600k). The cache goes back to the service's setting before anything is measured.
  const sqlite = config.database.kind === 'sqlite';
  if (sqlite && !reuse) await sql`pragma cache_size = -2097152`.execute(db);
  // A few hundred distinct vectors, reused: the bytes per row are real, generating a million of them is not the point.
  const vectors = Array.from({ length: 256 }, () => encodeVector(randomUnitVector(rng, dims)));
  for (let chunk = 0; chunk < (reuse ? 0 : FIELDS); chunk += 50_000) {
    await db.transaction().execute(async (trx) => {
      for (let start = chunk; start < Math.min(FIELDS, chunk + 50_000); start += 1000) {
        const rows = [];
        for (let i = start; i < Math.min(FIELDS, start + 1000); i++) {
          const t = Math.floor(rng() * tags.length);
          const r = rng();
          const review = r < 0.7 ? 'unreviewed' : r < 0.9 ? 'confirmed' : 'deferred';
          const score = rng();
          const suggested = rng() < 0.1 ? tags[Math.floor(rng() * tags.length)]! : undefined;
          rows.push({
            id: randomUUID(),
            datasource_id: sources[i % SOURCES]!,
            table_name: `schema_${i % 37}.table_${i % 997}`,
            field_name: `${NAMES[i % NAMES.length]}_${i}`,
            data_type: 'text',
            comment: null,
            format_signature: null,
            tag_id: tags[t]!.id,
            level: tags[t]!.default_level,
            locked: review === 'confirmed' ? (1 as const) : (0 as const),
            review_status: review as 'unreviewed',
            embedding: vectors[i % vectors.length]!,
            embedder_version: 'bench',
            outlier_score: score,
            severity: (score > 0.9 ? 'high' : score > 0.7 ? 'medium' : 'low') as 'low',
            risk: score,
            classification_source: review === 'confirmed' ? 'reviewer' : 'classifier',
            classification_confidence: review === 'confirmed' ? null : Math.round(rng() * 1000) / 1000,
            ...(suggested
              ? { suggested_tag_id: suggested.id, suggested_level: suggested.default_level, suggested_confidence: 0.5 }
              : {}),
            created_at: new Date(t0).toISOString(),
            updated_at: new Date(t0 + Math.floor(rng() * 86_400_000)).toISOString(),
          });
        }
        await trx
          .insertInto('fields')
          .values(rows as never)
          .execute();
      }
    });
    if ((chunk + 50_000) % 200_000 === 0)
      console.log(
        `  ${(chunk + 50_000).toLocaleString('en')} rows, ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
  }
  if (sqlite && !reuse) await sql`pragma cache_size = -65536`.execute(db);
  if (pgSchema) await pgAdmin(`analyze ${pgSchema}.fields`);
  if (reuse) console.log(`reusing the catalog in ${KEEP_FILE}`);
  else
    console.log(
      `${config.database.kind}: ${FIELDS.toLocaleString('en')} fields inserted in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg()} on ${os.cpus().length} cores`,
    );

  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username: 'admin', password: PASSWORD },
  });
  const token = (JSON.parse(login.body) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };

  // --- inventory report
  const reportMs: number[] = [];
  let totals = '';
  for (let i = 0; i < REPORTS; i++) {
    const t = performance.now();
    const res = await app.inject({ method: 'GET', url: '/api/v1/reports/inventory', headers });
    reportMs.push(performance.now() - t);
    if (res.statusCode !== 200) throw new Error(`inventory: ${res.statusCode} ${res.body}`);
    totals = JSON.stringify((JSON.parse(res.body) as { totals: unknown }).totals);
  }
  console.log(
    `GET /reports/inventory: first ${reportMs[0]!.toFixed(0)} ms, p50 ${pct(reportMs, 50).toFixed(0)} ms, max ${Math.max(...reportMs).toFixed(0)} ms over ${REPORTS} calls (target ≤ 1000 ms); totals ${totals}`,
  );

  // --- export through a socket
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${address.port}`;

  async function exportOnce(query: string, expected: number | undefined): Promise<void> {
    (globalThis as { gc?: () => void }).gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const t = performance.now();
    let bytes = 0;
    let records = 0;
    let firstByteMs = 0;
    try {
      const res = await fetch(`${base}/api/v1/fields/export?${query}`, {
        headers: { ...headers, ...(ACCEPT_ENCODING ? { 'accept-encoding': ACCEPT_ENCODING } : {}) },
      });
      if (res.status !== 200 || !res.body) throw new Error(`export ${query}: ${res.status} ${await res.text()}`);
      for await (const chunk of res.body) {
        if (bytes === 0) firstByteMs = performance.now() - t;
        const buf = chunk as Uint8Array;
        bytes += buf.byteLength;
        // CRLF ends a record (a line break inside a cell is a lone LF, quoted); NDJSON: LF.
        for (let i = 0; i < buf.length; i++)
          if (buf[i] === 10 && (query.includes('ndjson') || buf[i - 1] === 13 || (i === 0 && bytes > buf.byteLength)))
            records++;
      }
    } finally {
      clearInterval(sampler);
    }
    const s = (performance.now() - t) / 1000;
    const rows = query.includes('ndjson') ? records : records - 1;
    const check = expected === undefined ? '' : rows === expected ? ' (every field)' : ` (EXPECTED ${expected})`;
    console.log(
      `export ?${query}${ACCEPT_ENCODING ? ` (Accept-Encoding: ${ACCEPT_ENCODING})` : ''}: ${rows.toLocaleString('en')} records${check}, ${(bytes / MB).toFixed(0)} MB in ${s.toFixed(1)} s (${(rows / s / 1000).toFixed(0)} k rows/s, first byte ${firstByteMs.toFixed(0)} ms); ` +
        `RSS ${(rss0 / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB (growth ${((peak - rss0) / MB).toFixed(0)} MB)`,
    );
  }

  // The same export compressed, fetched by curl in its own process without decompressing: the server's compression
  // cost and memory, not a client's decompression on the same two cores (the earlier in-process runs mixed the two).
  async function exportCompressed(query: string, encoding: 'gzip' | 'br'): Promise<void> {
    (globalThis as { gc?: () => void }).gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const out = await new Promise<string>((resolve, reject) => {
        // Headers on stdin, so the bearer token is not on a command line other processes can read.
        const curl = spawn('curl', [
          '-s',
          '-S',
          '-o',
          '/dev/null',
          '-H',
          '@-',
          '-w',
          '%{http_code} %{size_download} %{time_starttransfer} %{time_total}',
          `${base}/api/v1/fields/export?${query}`,
        ]);
        let text = '';
        curl.stdout.on('data', (d: Buffer) => (text += d.toString()));
        curl.on('error', reject);
        curl.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}`))));
        curl.stdin.end(`authorization: ${headers.authorization}\naccept-encoding: ${encoding}\n`);
      });
      const [status, size, firstByte, total] = out.split(' ');
      if (status !== '200') throw new Error(`export ${query} (${encoding}): ${status}`);
      console.log(
        `export ?${query} (Accept-Encoding: ${encoding}, curl, not decompressed): ${(Number(size) / MB).toFixed(0)} MB in ${Number(total).toFixed(1)} s (first byte ${(Number(firstByte) * 1000).toFixed(0)} ms); ` +
          `server RSS ${(rss0 / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB (growth ${((peak - rss0) / MB).toFixed(0)} MB)`,
      );
    } finally {
      clearInterval(sampler);
    }
  }

  await exportOnce('format=csv', FIELDS);
  if (process.env.BENCH_COMPRESSED !== '0') {
    await exportCompressed('format=csv', 'gzip');
    await exportCompressed('format=csv', 'br');
  }
  if (FILTERED) {
    await exportOnce('format=ndjson', FIELDS);
    await exportOnce('format=csv&review_status=unreviewed', undefined);
    await exportOnce(`format=csv&datasource_id=${sources[2]}`, undefined);
    await exportOnce('format=csv&severity=high', undefined);
    await exportOnce(`format=csv&tag_id=${tags[Math.floor(tags.length / 2)]!.id}`, undefined);
  }
  console.log(`load average ${loadavg()}`);
} finally {
  await app.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (pgSchema) await pgAdmin(`drop schema ${pgSchema} cascade`);
}
