// Scanner benchmark: a full scan of the PostgreSQL source of bench/scan-source.ts (2,000 tables × 25 columns and three
// 10M-row tables) through the scans service and worker as the API runs them, classification and embeddings included,
// until the metrics of every new field are computed; then a rescan with nothing changed. Prints wall times, the
// process's peak RSS (VmHWM) and the rows read per table on the source (pg_stat_user_tables: seq_tup_read +
// idx_tup_fetch deltas), max and for the 10M-row tables, to show no table is read in full.
// App database: SQLite in a temp folder, or PostgreSQL (a throw-away schema) when BENCH_DATABASE_URL is set.
// Run: MALLOC_ARENA_MAX=2 node --heap-growing-percent=50 --import tsx bench/scan.ts   (the memory settings `npm start`
// uses; BENCH_SOURCE_URL as for scan-source.ts; BENCH_INCLUDE_SCHEMAS=hr,crm to scan part)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { loadConfig, type DatabaseConfig } from '../src/config.js';
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import type { Caller } from '../src/http/access.js';
import { createServices } from '../src/services.js';
import { SOURCE_URL } from './scan-source.js';

const caller: Caller = {
  id: '00000000-0000-4000-8000-000000000001',
  username: 'bench',
  email: 'bench@localhost',
  roles: ['superadmin'],
  requestId: 'bench-scan',
};
const INCLUDE = process.env.BENCH_INCLUDE_SCHEMAS?.split(',').filter(Boolean);

/** Peaks of the process's memory by kind, sampled every 250 ms: where the RSS goes (JS heap, buffers, native). */
function memorySampler(): { peaks: () => Record<string, number>; stop: () => void } {
  const peak = { rss: 0, heap_total: 0, heap_used: 0, external: 0, array_buffers: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heap_total = Math.max(peak.heap_total, m.heapTotal);
    peak.heap_used = Math.max(peak.heap_used, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
    peak.array_buffers = Math.max(peak.array_buffers, m.arrayBuffers);
  };
  const timer = setInterval(sample, 250);
  timer.unref();
  return {
    peaks: () => Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, Math.round(v / 1048576)])),
    stop: () => clearInterval(timer),
  };
}

function peakRssMiB(): number {
  const kb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Tuples read per table so far (sequential, sample and index reads). */
async function tuplesRead(source: pg.Client): Promise<Map<string, number>> {
  const r = await source.query<{ name: string; n: string }>(
    `SELECT schemaname || '.' || relname AS name, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text AS n FROM pg_stat_user_tables`,
  );
  return new Map(r.rows.map((row) => [row.name, Number(row.n)]));
}

async function rowsReadDuring(
  source: pg.Client,
  run: () => Promise<void>,
): Promise<{ max: number; maxTable: string; big: Record<string, number>; total: number }> {
  await source.query('SELECT pg_stat_clear_snapshot()');
  const before = await tuplesRead(source);
  await run();
  // The statistics of the scan's sessions are flushed when they end and at most once a second.
  await new Promise((r) => setTimeout(r, 2000));
  await source.query('SELECT pg_stat_clear_snapshot()');
  const after = await tuplesRead(source);
  let max = 0;
  let maxTable = '';
  let total = 0;
  const big: Record<string, number> = {};
  for (const [name, n] of after) {
    const delta = n - (before.get(name) ?? 0);
    total += delta;
    if (delta > max) [max, maxTable] = [delta, name];
    if (name.includes('big_events')) big[name] = delta;
  }
  return { max, maxTable, big, total };
}

async function main(): Promise<void> {
  const url = new URL(SOURCE_URL);
  const source = new pg.Client({ connectionString: SOURCE_URL });
  await source.connect();
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-bench-scan-'));
  const schema = `fl_bench_${randomBytes(4).toString('hex')}`;
  let dbConfig: DatabaseConfig = { kind: 'sqlite', file: path.join(dir, 'app.db') };
  if (pgUrl) {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    dbConfig = { kind: 'postgres', url: pgUrl };
  }
  const database = openDatabase(dbConfig, pgUrl ? { schema, poolSize: 5 } : {});
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
    const ds = await services.datasources.createDatasource(caller, {
      name: 'bench-scan',
      type: 'postgresql',
      connection: {
        kind: 'postgresql',
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username || 'postgres'),
        database: url.pathname.slice(1),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
        ...(INCLUDE ? { include_schemas: INCLUDE } : {}),
      },
    });
    services.metricsWorker.start();
    const rssStart = peakRssMiB();
    const memory = memorySampler();

    const scanOnce = async (): Promise<{
      seconds: number;
      scan: Awaited<ReturnType<typeof services.scans.getScan>>;
    }> => {
      const t0 = performance.now();
      const queued = await services.scans.requestScan(caller, ds.id);
      await services.scanWorker.drain();
      return { seconds: (performance.now() - t0) / 1000, scan: await services.scans.getScan(queued.id) };
    };

    let first!: Awaited<ReturnType<typeof scanOnce>>;
    const firstRows = await rowsReadDuring(source, async () => {
      first = await scanOnce();
    });
    const t1 = performance.now();
    await services.metricsWorker.drain(1_800_000);
    const settleSeconds = (performance.now() - t1) / 1000;
    const rssAfterFirst = peakRssMiB();

    let second!: Awaited<ReturnType<typeof scanOnce>>;
    const secondRows = await rowsReadDuring(source, async () => {
      second = await scanOnce();
    });
    await services.stop();
    console.log(
      JSON.stringify(
        {
          app_database: dbConfig.kind,
          first_scan: {
            status: first.scan.status,
            error: first.scan.error,
            seconds: +first.seconds.toFixed(1),
            progress: first.scan.progress,
            counts: first.scan.counts,
          },
          metrics_settled_after_scan_seconds: +settleSeconds.toFixed(1),
          first_scan_plus_metrics_seconds: +(first.seconds + settleSeconds).toFixed(1),
          rows_read_first: firstRows,
          unchanged_rescan: {
            status: second.scan.status,
            seconds: +second.seconds.toFixed(1),
            counts: second.scan.counts,
          },
          rows_read_rescan: {
            max: secondRows.max,
            maxTable: secondRows.maxTable,
            big: secondRows.big,
            total: secondRows.total,
          },
          peak_rss_mib: { start: rssStart, after_first_scan_and_metrics: rssAfterFirst, end: peakRssMiB() },
          memory_peaks_mib: memory.peaks(),
        },
        null,
        2,
      ),
    );
  } finally {
    await database.close();
    await source.end();
    if (pgUrl) {
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`drop schema if exists ${schema} cascade`);
      await admin.end();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
