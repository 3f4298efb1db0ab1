// Metrics speed: full recompute time and peak RSS for a synthetic catalog (fields bulk-inserted straight into the
// database with clustered random embeddings), server-side latency of a 500-id embedding-minibars call, and the time
// from a confirm to pending = 0. SQLite on a temp file, or PostgreSQL (a throw-away schema) when BENCH_DATABASE_URL
// is set. Each size runs in its own process, so peak RSS is that size's alone. Also printed: the worker's phase
// times and the time spent in garbage collection during the recompute.
// The fields are inserted while no instance runs, so the recompute starts from nothing.
// Run: npx tsx bench/metrics.ts   Knobs: BENCH_SIZES=10000,100000  BENCH_DATABASE_URL=postgres://…
//   BENCH_SOURCES=n: spread the fields over n data sources (default 1; the replica keeps a sum per tag and source).
//   BENCH_CATALOG_CACHE=dir (SQLite): keep the generated catalog of each size there and reuse it on the next run.
//   FIELDLENS_INDEX_THREADS=n: threads of the nearest-neighbour index (default: up to 2).
//   MALLOC_ARENA_MAX=n: glibc's malloc arenas in the measured process (default 2, as `npm start` sets it).
//   BENCH_CHECKPOINT_THREAD=off (SQLite): leave the WAL checkpoints to the service's connection, as before the
//   checkpoint thread (server.ts starts it; so does this bench by default).
//   BENCH_MINIBARS_PROFILE=file.cpuprofile: write a CPU profile of the minibars calls (open it in Chrome's DevTools).
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'kysely';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { encodeVector, openDatabase } from '../src/db/database.js';
import { mulberry32 } from './support/random.js';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const PASSWORD = 'metrics-bench-passphrase-0001';

let peakRss = 0;
/** process.memoryUsage() when RSS peaked: what the peak was made of. */
let atPeak = process.memoryUsage();
const sampler = setInterval(() => {
  const now = process.memoryUsage();
  if (now.rss > peakRss) [peakRss, atPeak] = [now.rss, now];
}, 50);
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });
const MiB = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const PG_URL = process.env.BENCH_DATABASE_URL;

async function run(n: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-mbench-'));
  const config = loadConfig({
    DATABASE_URL: PG_URL ?? `sqlite:${path.join(dir, 'm.db')}`,
    FIELDLENS_SAMPLE_DATA: 'off',
    FIELDLENS_ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: 'warn',
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
    FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
    FIELDLENS_INDEX_THREADS: process.env.FIELDLENS_INDEX_THREADS,
  });
  const schema = PG_URL ? `fl_mbench_${randomUUID().slice(0, 8)}` : undefined;
  const admin = PG_URL ? new pg.Client({ connectionString: PG_URL }) : undefined;
  if (admin) {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
  }
  const cache = PG_URL ? undefined : process.env.BENCH_CATALOG_CACHE;
  const cached = cache ? path.join(cache, `catalog-${n}.db`) : undefined;
  const reuse = cached !== undefined && fs.existsSync(cached);
  if (reuse) fs.copyFileSync(cached, path.join(dir, 'm.db'));
  const database = openDatabase(config.database, schema ? { schema } : {});
  // The first start migrates and creates the taxonomy; it is stopped before the catalog is loaded.
  let app = await buildApp({ config, database, logStream: pino.destination(2) });
  await app.services.bootstrap();
  const dims = app.services.embedder.dimensions;
  await app.close();
  try {
    const tags = await database.db.selectFrom('tags').select(['id', 'default_level']).execute();
    const rng = mulberry32(n);
    const gauss = (): number => Math.sqrt(-2 * Math.log(rng() + 1e-12)) * Math.cos(2 * Math.PI * rng());
    const centers = tags.map(() => Float32Array.from({ length: dims }, gauss));
    const sources = Array.from({ length: Math.max(1, Number(process.env.BENCH_SOURCES ?? 1)) }, () => randomUUID());
    const now = new Date().toISOString();
    if (!reuse)
      await database.db
        .insertInto('datasources')
        .values(
          sources.map((id, i) => ({
            id,
            name: i === 0 ? 'bench' : `bench ${i + 1}`,
            type: 'postgresql' as const,
            description: null,
            is_sample: 1,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
    const tInsert = performance.now();
    for (let s = 0; s < (reuse ? 0 : n); s += 1000) {
      const rows = [];
      for (let i = s; i < Math.min(n, s + 1000); i++) {
        const t = Math.floor(rng() * tags.length);
        const v = Float32Array.from(centers[t]!, (c) => c + 1.2 * gauss());
        let norm = 0;
        for (const x of v) norm += x * x;
        for (let d = 0; d < dims; d++) v[d]! /= Math.sqrt(norm);
        rows.push({
          id: randomUUID(),
          datasource_id: sources[Math.floor(i / 500) % sources.length] as string,
          table_name: `t${i % 500}`,
          field_name: `c${i}`,
          data_type: 'text',
          comment: null,
          format_signature: null,
          tag_id: tags[t]!.id,
          level: tags[t]!.default_level,
          locked: 0 as const,
          review_status: 'unreviewed' as const,
          embedding: encodeVector(v),
          embedder_version: 'bench',
          created_at: now,
          updated_at: now,
        });
      }
      await database.db.insertInto('fields').values(rows).execute();
    }
    const insertS = (performance.now() - tInsert) / 1000;
    if (cached && !reuse) {
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      fs.copyFileSync(path.join(dir, 'm.db'), cached);
    }
    // A start on the loaded catalog: the instance finds uncomputed fields and computes everything.
    peakRss = 0;
    app = await buildApp({ config, database, logStream: pino.destination(2) });
    await app.services.bootstrap();
    if (process.env.BENCH_CHECKPOINT_THREAD !== 'off') {
      database.startCheckpoints?.((error) => console.error(`checkpoint thread failed: ${error.message}`));
    }
    const gcBefore = gcMs;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    await app.services.metricsWorker.drain(3_600_000);
    const fullS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const rss = peakRss;
    const peak = atPeak;
    const gcS = (gcMs - gcBefore) / 1000;
    const work = app.services.metricsWorker.workTimes;
    const mem = process.memoryUsage();

    const ids = (await database.db.selectFrom('fields').select('id').execute()).map((r) => r.id);
    const profileFile = process.env.BENCH_MINIBARS_PROFILE;
    const inspector = profileFile ? new Session() : undefined;
    if (inspector) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
      await inspector.post('Profiler.start');
    }
    const lat: number[] = [];
    for (let r = 0; r < 200; r++) {
      const start = Math.floor(rng() * (ids.length - 500));
      const t = performance.now();
      await app.services.metrics.minibars({ field_ids: ids.slice(start, start + 500) });
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    if (inspector && profileFile) {
      const { profile } = await inspector.post('Profiler.stop');
      fs.writeFileSync(profileFile, JSON.stringify(profile));
      inspector.disconnect();
    }

    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: PASSWORD },
    });
    const token = (JSON.parse(login.body) as { access_token: string }).access_token;
    const tc = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${ids[0]}/confirm`,
      headers: { authorization: `Bearer ${token}` },
      payload: {},
    });
    if (res.statusCode !== 200) throw new Error(res.body);
    const pending = (await app.services.metrics.status()).pending;
    await app.services.metricsWorker.drain();
    const confirmMs = performance.now() - tc;

    console.log(
      `${n.toLocaleString('en')} fields${database.startCheckpoints && process.env.BENCH_CHECKPOINT_THREAD !== 'off' ? ' (checkpoint thread)' : ''}: bulk insert ${reuse ? 'reused' : `${insertS.toFixed(1)} s`}; full recompute (load + all fields) ${fullS.toFixed(1)} s (${cpuS.toFixed(0)} CPU-s, index threads ${config.indexThreads}), peak RSS ${(rss / 2 ** 20).toFixed(0)} MiB; ` +
        `minibars 500 ids p50 ${quantile(lat, 0.5).toFixed(1)} ms p99 ${quantile(lat, 0.99).toFixed(1)} ms; confirm → pending 0 ${confirmMs.toFixed(0)} ms (${pending} fields re-queued)`,
    );
    const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    console.log(
      `  recompute phases: load catalog + index ${s(work.loadMs)}, expand changes ${s(work.expandMs)}, claim ${s(work.claimMs)}, compute ${s(work.computeMs)}, store ${s(work.saveMs)} (${work.fields} fields); ` +
        `GC ${gcS.toFixed(1)} s; at the peak: JS heap ${MiB(peak.heapTotal)} MiB (${MiB(peak.heapUsed)} used), array buffers ${MiB(peak.arrayBuffers)} MiB, ` +
        `the rest (index threads, SQLite, code) ${MiB(peak.rss - peak.heapTotal - peak.arrayBuffers)} MiB; after: heap ${MiB(mem.heapUsed)} MiB, array buffers ${MiB(mem.arrayBuffers)} MiB, RSS ${MiB(mem.rss)} MiB`,
    );
  } finally {
    await app.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  }
}

if (!process.env.BENCH_CHILD) {
  // Each size in a child process started as `npm start` starts the service (MALLOC_ARENA_MAX, see docs/operations.md).
  const arenas = process.env.MALLOC_ARENA_MAX ?? '2';
  console.log(
    `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${PG_URL ? 'PostgreSQL' : 'SQLite'}, MALLOC_ARENA_MAX=${arenas}`,
  );
  for (const n of SIZES) {
    const env = { ...process.env, BENCH_SIZES: String(n), BENCH_CHILD: '1', MALLOC_ARENA_MAX: arenas };
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env,
      stdio: 'inherit',
    });
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
} else {
  await run(SIZES[0] as number);
}
clearInterval(sampler);
