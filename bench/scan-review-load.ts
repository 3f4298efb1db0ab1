// Scan writer against reviewers (issue 30 item 5): two service instances on one PostgreSQL app database; a source of
// TABLES × COLUMNS columns is scanned once, then RUNS times its column comments change and it is rescanned (every field
// rewritten) while the other instance batch-confirms the same fields in random batches until the scan ends. Counts
// answers by status (5xx must be 0) and how each scan ended (must be succeeded). Needs PostgreSQL (BENCH_DATABASE_URL
// or TEST_DATABASE_URL; the source database is created on the same server).
// Run: TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/scan-review-load.ts
// Knobs: BENCH_RUNS (default 10), BENCH_TABLES (default 30), BENCH_COLUMNS (default 20), BENCH_BATCH (default 100).
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig, type DatabaseConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TABLES = Number(process.env.BENCH_TABLES ?? 30);
const COLUMNS = Number(process.env.BENCH_COLUMNS ?? 20);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const PASSWORD = 'bench-passphrase-of-the-boss-0001';
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

async function createDb(url: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropDb(url: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

interface Instance {
  app: FastifyInstance;
  database: Database;
  token: string;
}

async function instance(config: DatabaseConfig): Promise<Instance> {
  const database = openDatabase(config, { poolSize: 10 });
  const base = loadConfig({ FIELDLENS_ADMIN_PASSWORD: PASSWORD, FIELDLENS_SAMPLE_DATA: 'off', LOG_LEVEL: 'warn' });
  const app = await buildApp({
    config: { ...base, database: config },
    database,
    clock: systemClock,
    logStream: pino.destination('/dev/null'),
  });
  await app.ready();
  await app.services.bootstrap();
  app.services.startWorkers();
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username: 'admin', password: PASSWORD },
  });
  return { app, database, token: (login.json() as { access_token: string }).access_token };
}

async function call(
  i: Instance,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await i.app.inject({
    method,
    url,
    ...(payload ? { payload } : {}),
    headers: { authorization: `Bearer ${i.token}` },
  });
  return { status: r.statusCode, body: r.body ? (JSON.parse(r.body) as Record<string, unknown>) : {} };
}

async function waitScan(i: Instance, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const scan = (await call(i, 'GET', `/api/v1/scans/${id}`)).body;
    if (scan.status !== 'queued' && scan.status !== 'running') return scan;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<void> {
  if (!PG_URL) throw new Error('set BENCH_DATABASE_URL or TEST_DATABASE_URL (PostgreSQL)');
  const tag = randomBytes(4).toString('hex');
  const appName = `fl_bench_app_${tag}`;
  const srcName = `fl_bench_src_${tag}`;
  const appUrl = await createDb(PG_URL, appName);
  const srcUrl = await createDb(PG_URL, srcName);
  const source = new pg.Client({ connectionString: srcUrl });
  await source.connect();
  const config: DatabaseConfig = { kind: 'postgres', url: appUrl };
  const a = await instance(config);
  const b = await instance(config);
  try {
    const ddl: string[] = [];
    for (let t = 0; t < TABLES; t++) {
      const cols = Array.from({ length: COLUMNS }, (_, c) => `c${c} text`).join(', ');
      ddl.push(
        `CREATE TABLE t${t} (id integer PRIMARY KEY, ${cols}); INSERT INTO t${t} SELECT g, ${Array.from({ length: COLUMNS }, (_, c) => `'v${c}-' || g`).join(', ')} FROM generate_series(1, 20) g;`,
      );
    }
    await source.query(ddl.join('\n'));
    const srcSpec = new URL(srcUrl);
    const ds = await call(a, 'POST', '/api/v1/datasources', {
      name: 'bench-source',
      type: 'postgresql',
      connection: {
        kind: 'postgresql',
        host: srcSpec.hostname,
        port: Number(srcSpec.port || 5432),
        user: decodeURIComponent(srcSpec.username),
        ...(srcSpec.password ? { password: decodeURIComponent(srcSpec.password) } : {}),
        database: srcName,
      },
    });
    if (ds.status !== 201) throw new Error(`create data source: ${ds.status} ${JSON.stringify(ds.body)}`);
    const datasourceId = ds.body.id as string;
    const first = await call(a, 'POST', `/api/v1/datasources/${datasourceId}/scans`, {});
    if (first.status !== 202) throw new Error(`start scan: ${first.status} ${JSON.stringify(first.body)}`);
    const firstEnd = await waitScan(a, first.body.id as string);
    if (firstEnd.status !== 'succeeded')
      throw new Error(`first scan ${String(firstEnd.status)}: ${String(firstEnd.error)}`);
    const ids = (
      await a.database.db.selectFrom('fields').select('id').where('datasource_id', '=', datasourceId).execute()
    ).map((r) => r.id);
    console.log(
      `source: ${TABLES} tables, ${ids.length} fields; ${RUNS} rescans, batch-confirm batches of ${BATCH} on the other instance`,
    );

    const statuses = new Map<number, number>();
    const scanEnds: string[] = [];
    let confirms = 0;
    for (let run = 1; run <= RUNS; run++) {
      // Every column's comment changes: the rescan rewrites every field.
      await source.query(
        Array.from({ length: TABLES }, (_, t) =>
          Array.from({ length: COLUMNS }, (_, c) => `COMMENT ON COLUMN t${t}.c${c} IS 'run ${run}';`).join('\n'),
        ).join('\n'),
      );
      const started = Date.now();
      const scan = await call(a, 'POST', `/api/v1/datasources/${datasourceId}/scans`, {});
      if (scan.status !== 202) throw new Error(`start scan: ${scan.status} ${JSON.stringify(scan.body)}`);
      let scanning = true;
      const reviewer = (async () => {
        let level = 0;
        while (scanning) {
          const shuffled = [...ids].sort(() => Math.random() - 0.5);
          for (let i = 0; i < shuffled.length && scanning; i += BATCH) {
            const r = await call(b, 'POST', '/api/v1/classify/fields/batch-confirm', {
              field_ids: shuffled.slice(i, i + BATCH),
              lock_level: level++ % 2 === 0 ? 'L2' : 'L3',
            });
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            confirms++;
          }
        }
      })();
      const ended = await waitScan(a, scan.body.id as string);
      scanning = false;
      await reviewer;
      scanEnds.push(String(ended.status));
      const counts = ended.counts as Record<string, number>;
      console.log(
        `run ${run}: scan ${String(ended.status)}${ended.error ? ` (${String(ended.error)})` : ''} in ${Date.now() - started} ms, changed ${counts.changed}; batch-confirm answers so far ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    }
    const fiveXx = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    const failedScans = scanEnds.filter((s) => s !== 'succeeded').length;
    console.log('');
    console.log(
      `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `batch-confirm calls: ${confirms}, by status ${JSON.stringify(Object.fromEntries(statuses))}; 5xx: ${fiveXx}`,
    );
    console.log(`scans: ${scanEnds.length}, not succeeded: ${failedScans} (${scanEnds.join(', ')})`);
    process.exitCode = fiveXx === 0 && failedScans === 0 ? 0 : 1;
  } finally {
    await a.app.close();
    await b.app.close();
    await a.database.close().catch(() => undefined);
    await b.database.close().catch(() => undefined);
    await source.end();
    await dropDb(PG_URL, appName);
    await dropDb(PG_URL, srcName);
  }
}

await main();
