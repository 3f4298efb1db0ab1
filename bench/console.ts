// Console benchmark: GET /api/v1/fields?limit=500 (outlier order — and risk order when the server offers it — with and
// without the queue's filters: data source, review status) and the 500-id embedding-minibars call over real HTTP, then
// the console's queue render of 500 rows in Debian's Chromium (performance marks in the page: data in hand → rows laid
// out). SQLite, or PostgreSQL with BENCH_DATABASE_URL (a throw-away schema per server, dropped afterwards).
// Run: npx tsx bench/console.ts
// Knobs: BENCH_FIELDS (default 20,000 fields, half given a tag by the import, half classified by the classifier so
// they carry evidence), BENCH_REQUESTS (default 40 per endpoint), BENCH_RENDERS (default 7; 0 skips the browser),
// BENCH_COMPARE=<another checkout> (e.g. `git worktree add /tmp/before main`, with node_modules): builds that
// checkout's server (and console) beside this one on the same catalog, in this process, and alternates every request
// and page load between the two, so both see the same load on a shared machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import type * as AppModule from '../src/app.js';
import type * as ConfigModule from '../src/config.js';
import type * as DatabaseModule from '../src/db/database.js';
import type * as HarnessModule from '../test/console/harness.js';

const FIELDS = Number(process.env.BENCH_FIELDS ?? 20_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const RENDERS = Number(process.env.BENCH_RENDERS ?? 7);
const PG_URL = process.env.BENCH_DATABASE_URL;
const PASSWORD = 'bench-passphrase-of-the-boss-0001';
const HERE = fileURLToPath(new URL('../', import.meta.url));

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

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(statement);
  await client.end();
}

interface Server {
  label: string;
  base: string;
  token: string;
  sources: string[];
  call<T>(method: string, url: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** The service of the checkout at `root`, listening on a free loopback port, with the bench catalog imported and scored. */
async function startServer(root: string, label: string): Promise<Server> {
  const load = <T>(file: string) => import(pathToFileURL(path.join(root, file)).href) as Promise<T>;
  const { buildApp } = await load<typeof AppModule>('src/app.ts');
  const { loadConfig } = await load<typeof ConfigModule>('src/config.ts');
  const { openDatabase } = await load<typeof DatabaseModule>('src/db/database.ts');
  (await load<typeof HarnessModule>('test/console/harness.ts')).ensureConsoleBuilt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-console-'));
  const pgSchema = PG_URL ? `bench_console_${randomBytes(4).toString('hex')}` : undefined;
  if (pgSchema) await pgAdmin(`create schema ${pgSchema}`);
  const config = loadConfig({
    DATABASE_URL: PG_URL ?? `sqlite:${path.join(dir, 'bench.db')}`,
    FIELDLENS_ADMIN_PASSWORD: PASSWORD,
    FIELDLENS_SAMPLE_DATA: 'off',
    LOG_LEVEL: 'warn',
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
    FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
  });
  const database = openDatabase(config.database, pgSchema ? { schema: pgSchema } : {});
  const app = await buildApp({ config, database });
  await app.services.bootstrap();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let token = '';
  const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
    const response = await fetch(base + url, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${label}: ${method} ${url}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
  };
  const close = async () => {
    await app.close();
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (pgSchema) await pgAdmin(`drop schema ${pgSchema} cascade`);
  };
  try {
    token = (
      await call<{ access_token: string }>('POST', '/api/v1/auth/login', { username: 'admin', password: PASSWORD })
    ).access_token;
    const sources: string[] = [];
    for (const name of ['bench-a', 'bench-b'])
      sources.push((await call<{ id: string }>('POST', '/api/v1/datasources', { name, type: 'postgresql' })).id);
    const names = ['email', 'created_at', 'full_name', 'id', 'phone_number', 'amount', 'status', 'customer_ref'];
    const paths = [
      'Technical/Record ID',
      'Technical/Timestamp',
      'Personal/Contact/Email address',
      'Personal/Identity/Full name',
    ];
    const started = performance.now();
    const CHUNK = 2000;
    for (let i = 0; i < FIELDS; i += CHUNK) {
      const n = Math.min(CHUNK, FIELDS - i);
      // Half tagged by the import, half left to the classifier (whose answers carry evidence the list parses and sends).
      const fields = Array.from({ length: n }, (_, j) => {
        const k = i + j;
        return k % 2 === 0
          ? {
              table_name: `t_${k % 97}`,
              field_name: `c_${k}`,
              data_type: 'text',
              classification_chain_path: paths[k % paths.length],
            }
          : {
              table_name: `t_${k % 97}`,
              field_name: `${names[k % names.length]}_${k}`,
              data_type: 'varchar',
              comment: 'a column of the bench',
            };
      });
      await call('POST', '/api/v1/fields/import', { datasource_id: sources[(i / CHUNK) % 2], fields });
    }
    await app.services.metricsWorker.drain(30 * 60_000);
    // What autovacuum does within a minute of a bulk load, done now: the planner sees the catalog's real size.
    if (pgSchema) await pgAdmin(`analyze ${pgSchema}.fields`);
    console.log(
      `${label} (${config.database.kind}): ${FIELDS} fields imported and scored in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    return { label, base, token, sources, call, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Times `run` on every server, REQUESTS times each, alternating the servers (and which goes first) request by request. */
async function timed(servers: Server[], label: string, run: (server: Server) => Promise<unknown>): Promise<void> {
  const ms = servers.map(() => [] as number[]);
  for (const server of servers) for (let i = 0; i < 3; i++) await run(server);
  for (let i = 0; i < REQUESTS; i++) {
    const order = i % 2 === 0 ? servers.map((_, k) => k) : servers.map((_, k) => servers.length - 1 - k);
    for (const k of order) {
      const t0 = performance.now();
      await run(servers[k] as Server);
      ms[k]?.push(performance.now() - t0);
    }
  }
  const figures = servers.map(
    (s, k) =>
      `${servers.length > 1 ? `${s.label} ` : ''}p50 ${pct(ms[k] ?? [], 50).toFixed(1)} ms, p95 ${pct(ms[k] ?? [], 95).toFixed(1)} ms`,
  );
  console.log(`${label}: ${figures.join(' | ')} (${REQUESTS} sequential requests each)`);
}

/** The queue page of 500 rows in Chromium, RENDERS times per server: the page's own marks and the renderer's CPU time. */
async function timeQueueRender(servers: Server[]): Promise<void> {
  const { launchBrowser } = await import('../test/console/harness.js');
  const { browser, close } = await launchBrowser();
  try {
    const pages = [];
    for (const server of servers) {
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
      // Two servers of 100k fields on a loaded 2-core machine: a page may take longer than Playwright's 30 s default.
      page.setDefaultTimeout(180_000);
      await page.goto(`${server.base}/queue`);
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('who').waitFor();
      pages.push(page);
    }
    const render = servers.map(() => [] as number[]);
    const commit = servers.map(() => [] as number[]);
    const cpu = servers.map(() => [] as number[]);
    for (let i = 0; i < RENDERS; i++) {
      for (const [k, server] of servers.entries()) {
        const page = pages[k] as (typeof pages)[number];
        // Alternate the data source so each run renders a fresh page of 500 rows.
        const cpu0 = rendererCpuMs();
        await page.goto(`${server.base}/queue?limit=500&review_status=any&datasource_id=${server.sources[i % 2]}`);
        await page.locator('body[data-queue-rows="500"]').waitFor();
        cpu[k]?.push(rendererCpuMs() - cpu0);
        const [r, c] = (await page.evaluate(
          `(() => { const m = performance.getEntriesByName('queue-render').at(-1); return [m.duration, performance.getEntriesByName('queue-commit').at(-1).startTime - m.startTime]; })()`,
        )) as [number, number];
        render[k]?.push(r);
        commit[k]?.push(c);
      }
    }
    console.log(`load average ${loadavg()}`);
    for (const [k, server] of servers.entries()) {
      const r = render[k] ?? [];
      const who = servers.length > 1 ? `${server.label}: ` : '';
      console.log(
        `${who}queue render, 500 rows: p50 ${pct(r, 50).toFixed(1)} ms, max ${Math.max(...r).toFixed(1)} ms (DOM commit p50 ${pct(commit[k] ?? [], 50).toFixed(1)} ms; ${RENDERS} page loads)`,
      );
      console.log(
        `${who}renderer CPU for the whole page load (JS start, sign-in resume, two API calls, render), p50 ${pct(cpu[k] ?? [], 50).toFixed(0)} ms, min ${Math.min(...(cpu[k] ?? [])).toFixed(0)} ms`,
      );
    }
  } finally {
    await close();
  }
}

const servers: Server[] = [];
try {
  if (process.env.BENCH_COMPARE) servers.push(await startServer(path.resolve(process.env.BENCH_COMPARE), 'compared'));
  servers.push(await startServer(HERE, 'this'));
  console.log(`load average ${loadavg()} on ${os.cpus().length} cores`);
  type Page = { items: { id: string }[] };
  // The queue asks for unreviewed fields unless told otherwise, and for sort=risk when the server offers it.
  const doc = await (servers.at(-1) as Server).call<{
    paths: Record<string, { get?: { parameters?: Array<{ name: string; schema?: { enum?: string[] } }> } }>;
  }>('GET', '/openapi.json');
  const sorts = [
    'outlier_score',
    ...(doc.paths['/api/v1/fields']?.get?.parameters?.find((p) => p.name === 'sort')?.schema?.enum?.includes('risk')
      ? ['risk']
      : []),
  ];
  for (const sort of sorts) {
    for (const [label, filter] of [
      ['', () => ''],
      ['&datasource_id=…', (s: Server) => `&datasource_id=${s.sources[0]}`],
      ['&review_status=unreviewed', () => '&review_status=unreviewed'],
      [
        '&datasource_id=…&review_status=unreviewed',
        (s: Server) => `&datasource_id=${s.sources[1]}&review_status=unreviewed`,
      ],
    ] as const) {
      await timed(servers, `GET /api/v1/fields?limit=500&sort=${sort}${label}`, (s) =>
        s.call<Page>('GET', `/api/v1/fields?limit=500&sort=${sort}${filter(s)}`),
      );
    }
  }
  const ids = new Map<Server, string[]>();
  for (const s of servers)
    ids.set(
      s,
      (await s.call<Page>('GET', '/api/v1/fields?limit=500&sort=outlier_score')).items.map((f) => f.id),
    );
  await timed(servers, 'POST /api/v1/classify/fields/embedding-minibars (500 ids)', (s) =>
    s.call('POST', '/api/v1/classify/fields/embedding-minibars', { field_ids: ids.get(s) }),
  );
  console.log(`load average ${loadavg()}`);
  if (RENDERS > 0) await timeQueueRender(servers);
} finally {
  for (const s of servers) await s.close();
}
