/**
 * A scan stuck on a SQLite view that never ends, against a real server process built from this checkout (`dist/`,
 * run `npx tsc -p tsconfig.build.json` first), app database SQLite (issue 30 items 1 and 7):
 *
 *   - /healthz over HTTP while the scan is stuck: slowest and median of 50 requests;
 *   - cancel: from POST /scans/{id}/cancel to the scan `cancelled`;
 *   - SIGTERM: from the signal to the process's exit, with the scan stuck; and that no reader process is left;
 *   - kill -9 of the server while stuck: time until its orphaned reader process is gone.
 *
 *   npx tsx bench/scan-interrupt.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

const root = mkdtempSync(path.join(os.tmpdir(), 'fl-bench-stuck-'));
const scanDir = path.join(root, 'scan');
const PASSWORD = 'bench-passphrase-of-the-boss-01';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Running (a zombie waiting to be reaped is not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

class Server {
  readonly proc: ChildProcess;
  constructor(
    readonly port: number,
    db: string,
  ) {
    this.proc = spawn(process.execPath, ['dist/cli.js', 'serve'], {
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: `sqlite:${db}`,
        FIELDLENS_ADMIN_PASSWORD: PASSWORD,
        FIELDLENS_SAMPLE_DATA: 'off',
        FIELDLENS_SCAN_SQLITE_DIR: scanDir,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  async call(
    method: string,
    url: string,
    token?: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await fetch(`http://127.0.0.1:${this.port}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  async ready(): Promise<void> {
    await until(
      'the server',
      async () => (await this.call('GET', '/readyz').catch(() => ({ status: 0 }))).status === 200,
    );
  }
}

async function stuckScan(s: Server, token: string, dsId: string): Promise<string> {
  const scan = await s.call('POST', `/api/v1/datasources/${dsId}/scans`, token, {});
  const id = scan.body.id as string;
  await until('sampling', async () => (await s.call('GET', `/api/v1/scans/${id}`, token)).body.phase === 'sampling');
  await until('a reader process', () => childrenOf(s.proc.pid!).length > 0);
  await new Promise((r) => setTimeout(r, 500));
  return id;
}

async function main(): Promise<void> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(scanDir);
  const src = new BetterSqlite3(path.join(scanDir, 'stuck.db'));
  src.exec(`CREATE TABLE a_people (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO a_people VALUES (1, 'a@example.com');
    CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0`);
  src.close();
  const db = path.join(root, 'app.db');
  let s = new Server(await freePort(), db);
  await s.ready();
  const token = (await s.call('POST', '/api/v1/auth/login', undefined, { username: 'admin', password: PASSWORD })).body
    .access_token as string;
  const ds = await s.call('POST', '/api/v1/datasources', token, {
    name: 'stuck',
    type: 'sqlite',
    connection: { kind: 'sqlite', database: 'stuck.db' },
  });
  const dsId = ds.body.id as string;

  // 1. /healthz while stuck, then cancel.
  let scan = await stuckScan(s, token, dsId);
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const r = await s.call('GET', '/healthz');
    if (r.status !== 200) throw new Error(`/healthz ${r.status}`);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(
    `/healthz during a stuck scan: median ${times[25]!.toFixed(1)} ms, slowest ${times[49]!.toFixed(1)} ms (50 requests, all 200)`,
  );
  let t0 = Date.now();
  await s.call('POST', `/api/v1/scans/${scan}/cancel`, token, {});
  await until(
    'cancelled',
    async () => (await s.call('GET', `/api/v1/scans/${scan}`, token)).body.status === 'cancelled',
  );
  console.log(`cancel → status cancelled: ${Date.now() - t0} ms (heartbeat 5 s reads the cancel flag)`);
  await until('no reader left after cancel', () => childrenOf(s.proc.pid!).length === 0, 10_000);

  // 2. SIGTERM while stuck.
  scan = await stuckScan(s, token, dsId);
  const readers = childrenOf(s.proc.pid!);
  t0 = Date.now();
  const exited = new Promise<number | null>((resolve) => s.proc.once('exit', (code) => resolve(code)));
  s.proc.kill('SIGTERM');
  const code = await exited;
  const exitMs = Date.now() - t0;
  await until('the reader gone after SIGTERM', () => !readers.some(alive), 30_000);
  console.log(`SIGTERM → exit (code ${code}): ${exitMs} ms; its reader process gone after ${Date.now() - t0} ms`);

  // 3. kill -9 while stuck: the orphaned reader ends by itself.
  s = new Server(await freePort(), db);
  await s.ready();
  const token2 = (await s.call('POST', '/api/v1/auth/login', undefined, { username: 'admin', password: PASSWORD })).body
    .access_token as string;
  // The scan given back at SIGTERM is resumed by the new instance: it gets stuck again.
  await until(
    'the resumed scan sampling',
    async () =>
      (await s.call('GET', `/api/v1/scans/${scan}`, token2)).body.phase === 'sampling' &&
      childrenOf(s.proc.pid!).length > 0,
  );
  const orphans = childrenOf(s.proc.pid!);
  const killed = new Promise((resolve) => s.proc.once('exit', resolve));
  t0 = Date.now();
  s.proc.kill('SIGKILL');
  await killed;
  await until('the orphaned reader gone', () => !orphans.some(alive), 30_000);
  console.log(`kill -9 of the server → its reader process gone after ${Date.now() - t0} ms`);
  rmSync(root, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
