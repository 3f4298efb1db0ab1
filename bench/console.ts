// Console benchmark: GET /api/v1/fields?limit=500 (outlier order — and risk order when the server offers it — with and
// without the queue's filters: data source, review status) and the 500-id embedding-minibars call over real HTTP, then
// the console's queue render of 500 rows in Debian's Chromium (performance marks in the page: data in hand → rows laid
// out). SQLite, or PostgreSQL with BENCH_DATABASE_URL (a throw-away schema, dropped afterwards).
// Run: npx tsx bench/console.ts
// Knobs: BENCH_FIELDS (default 20,000 fields, half given a tag by the import, half classified by the classifier so
// they carry evidence), BENCH_REQUESTS (default 40 per endpoint), BENCH_RENDERS (default 7; 0 skips the browser).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { ensureConsoleBuilt, launchBrowser } from '../test/console/harness.js';

const FIELDS = Number(process.env.BENCH_FIELDS ?? 20_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 7);
const PASSWORD = 'bench-passphrase-of-the-boss-0001';

/** CPU time (ms) used so far by Chromium's renderer processes: unlike wall time, barely moved by other load. */
function rendererCpuMs(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended between listing and reading
    }
  }
  return ticks * 10; // USER_HZ = 100 on Linux
}

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

ensureConsoleBuilt();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-console-'));
const PG_URL = process.env.BENCH_DATABASE_URL;
const pgSchema = PG_URL ? `bench_console_${randomBytes(4).toString('hex')}` : undefined;
async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(statement);
  await client.end();
}
if (pgSchema) await pgAdmin(`create schema ${pgSchema}`);
const config = loadConfig({ DATABASE_URL: PG_URL ?? `sqlite:${path.join(dir, 'bench.db')}`, FIELDLENS_ADMIN_PASSWORD: PASSWORD, FIELDLENS_SAMPLE_DATA: 'off', LOG_LEVEL: 'warn' });
const database = openDatabase(config.database, pgSchema ? { schema: pgSchema } : {});
console.log(`database: ${config.database.kind}`);
const app = await buildApp({ config, database });
await app.services.bootstrap();
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

async function call<T>(method: string, url: string, token: string | undefined, body?: unknown): Promise<T> {
  const response = await fetch(base + url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
}

/** The queue page of 500 rows in Chromium, RENDERS times: the page's own marks and the renderer's CPU time. */
async function timeQueueRender(sources: string[]): Promise<void> {
  const { browser, close } = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(`${base}/queue`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
    const render: number[] = [];
    const commit: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RENDERS; i++) {
      // Alternate the data source so each run renders a fresh page of 500 rows.
      const cpu0 = rendererCpuMs();
      await page.goto(`${base}/queue?limit=500&review_status=any&datasource_id=${sources[i % 2]}`);
      await page.locator('body[data-queue-rows="500"]').waitFor();
      cpu.push(rendererCpuMs() - cpu0);
      const [r, c] = (await page.evaluate(
        `(() => { const m = performance.getEntriesByName('queue-render').at(-1); return [m.duration, performance.getEntriesByName('queue-commit').at(-1).startTime - m.startTime]; })()`,
      )) as [number, number];
      render.push(r);
      commit.push(c);
    }
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`queue render, 500 rows: p50 ${pct(render, 50).toFixed(1)} ms, max ${Math.max(...render).toFixed(1)} ms (DOM commit p50 ${pct(commit, 50).toFixed(1)} ms; ${RENDERS} page loads)`);
    console.log(`renderer CPU for the whole page load (JS start, sign-in resume, two API calls, render), p50 ${pct(cpu, 50).toFixed(0)} ms, min ${Math.min(...cpu).toFixed(0)} ms`);
  } finally {
    await close();
  }
}

try {
  const { access_token: token } = await call<{ access_token: string }>('POST', '/api/v1/auth/login', undefined, { username: 'admin', password: PASSWORD });
  const sources: string[] = [];
  for (const name of ['bench-a', 'bench-b']) sources.push((await call<{ id: string }>('POST', '/api/v1/datasources', token, { name, type: 'postgresql' })).id);
  const names = ['email', 'created_at', 'full_name', 'id', 'phone_number', 'amount', 'status', 'customer_ref'];
  const paths = ['Technical/Record ID', 'Technical/Timestamp', 'Personal/Contact/Email address', 'Personal/Identity/Full name'];
  const started = performance.now();
  const CHUNK = 2000;
  for (let i = 0; i < FIELDS; i += CHUNK) {
    const n = Math.min(CHUNK, FIELDS - i);
    // Half tagged by the import, half left to the classifier (whose answers carry evidence the list parses and sends).
    const fields = Array.from({ length: n }, (_, j) => {
      const k = i + j;
      return k % 2 === 0
        ? { table_name: `t_${k % 97}`, field_name: `c_${k}`, data_type: 'text', classification_chain_path: paths[k % paths.length] }
        : { table_name: `t_${k % 97}`, field_name: `${names[k % names.length]}_${k}`, data_type: 'varchar', comment: 'a column of the bench' };
    });
    await call('POST', '/api/v1/fields/import', token, { datasource_id: sources[(i / CHUNK) % 2], fields });
  }
  await app.services.metricsWorker.drain(30 * 60_000);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
  console.log(`catalog: ${FIELDS} fields imported and scored in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const timed = async (label: string, run: () => Promise<unknown>) => {
    for (let i = 0; i < 3; i++) await run();
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      await run();
      ms.push(performance.now() - t0);
    }
    console.log(`${label}: p50 ${pct(ms, 50).toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms (${REQUESTS} sequential requests)`);
  };
  type Page = { items: { id: string }[] };
  // The queue asks for unreviewed fields unless told otherwise, and for sort=risk when the server offers it.
  const doc = await call<{ paths: Record<string, { get?: { parameters?: Array<{ name: string; schema?: { enum?: string[] } }> } }> }>('GET', '/openapi.json', undefined);
  const sorts = ['outlier_score', ...(doc.paths['/api/v1/fields']?.get?.parameters?.find((p) => p.name === 'sort')?.schema?.enum?.includes('risk') ? ['risk'] : [])];
  for (const sort of sorts) {
    for (const [label, filter] of [
      ['', ''],
      ['&datasource_id=…', `&datasource_id=${sources[0]}`],
      ['&review_status=unreviewed', '&review_status=unreviewed'],
      ['&datasource_id=…&review_status=unreviewed', `&datasource_id=${sources[1]}&review_status=unreviewed`],
    ] as const) {
      await timed(`GET /api/v1/fields?limit=500&sort=${sort}${label}`, () => call<Page>('GET', `/api/v1/fields?limit=500&sort=${sort}${filter}`, token));
    }
  }
  const ids = (await call<Page>('GET', '/api/v1/fields?limit=500&sort=outlier_score', token)).items.map((f) => f.id);
  await timed('POST /api/v1/classify/fields/embedding-minibars (500 ids)', () => call('POST', '/api/v1/classify/fields/embedding-minibars', token, { field_ids: ids }));

  if (RENDERS > 0) await timeQueueRender(sources);
} finally {
  await app.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
  if (pgSchema) await pgAdmin(`drop schema ${pgSchema} cascade`);
}
