/**
 * HTTP benchmark (issues 2 and 3): autocannon -c 50 -d 10 against
 *   - a bare Fastify hello-world (the reference),
 *   - FieldLens GET /healthz (framework overhead the project adds: hooks, request ids, logging),
 *   - FieldLens GET /api/v1/auth/me with a valid token (JWT verification + user lookup),
 * all in the same run on the same machine, then login requests/s and the server's event-loop delay
 * while logins run (Argon2id happens on libuv's thread pool), and the server's CPU time per failed login for an
 * unknown user and for a wrong password (both must cost one Argon2id verification; the tests count the verifications,
 * this measures what they cost).
 *
 * Each of the three GET targets is measured in `--rounds` interleaved rounds (bare, healthz, me, bare, …) so that
 * a burst of load from elsewhere on the machine hits all of them alike; the table shows each target's median round.
 * Besides requests/s, each run reports the server process's CPU time per request (from /proc), which depends less
 * on what else the shared machine is doing.
 *
 *   npx tsx bench/http.ts [--duration 10] [--connections 50] [--rounds 3]
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/http.ts …   (the same on PostgreSQL)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { processCpuMicros } from './support/process-cpu.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const ADMIN_PASSWORD = 'bench-operator-passphrase-0001';

/**
 * Starts a server whose stdout goes to a file (as production logs go to a file or journald): piped into this
 * process, the log lines would cost autocannon's own CPU and slow the client, not the server.
 */
async function start(
  args: string[],
  env: Record<string, string>,
  logFile: string,
): Promise<{ child: ChildProcess; port: number }> {
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    if (exited !== undefined) throw new Error(`${args.join(' ')} exited with ${exited}`);
    const match = /LISTENING (\d+)|listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(logFile, 'utf8'));
    if (match) return { child, port: Number(match[1] ?? match[2]) };
  }
  child.kill('SIGTERM');
  throw new Error(`no listening line from ${args.join(' ')}`);
}

type Result = Awaited<ReturnType<typeof run>>;

/** The round with the median throughput. */
function median(results: Result[]): Result {
  return [...results].sort((a, b) => a.rps - b.rps)[Math.floor(results.length / 2)] as Result;
}

/** One autocannon run against the server process `pid`, with that process's CPU time per completed request (µs). */
async function run(pid: number, opts: autocannon.Options) {
  const cpuBefore = processCpuMicros(pid);
  const result = await autocannon({ duration, connections, ...opts });
  const cpuUs = Math.round((processCpuMicros(pid) - cpuBefore) / Math.max(1, result.requests.total));
  return {
    rps: Math.round(result.requests.average),
    cpuUs,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function pidOf(child: ChildProcess): number {
  if (child.pid === undefined) throw new Error('the server process has no pid');
  return child.pid;
}

/**
 * CPU time of the server per failed login, unknown user vs wrong password, one request at a time in alternating
 * batches of 9 (the 10th consecutive failure would throttle the username; a successful login between the wrong-password
 * batches resets it and is not counted).
 */
async function failedLoginCpu(
  base: string,
  pid: number,
  batches = 15,
): Promise<{ batches: number; unknownMs: number; wrongMs: number }> {
  const post = (username: string, password: string) =>
    fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    }).then((r) => r.status);
  const perAttempt = async (attempt: (i: number) => Promise<number>): Promise<number> => {
    const before = processCpuMicros(pid);
    for (let i = 0; i < 9; i++) if ((await attempt(i)) !== 401) throw new Error('a failed login was not answered 401');
    return (processCpuMicros(pid) - before) / 9 / 1000;
  };
  const unknown: number[] = [];
  const wrong: number[] = [];
  for (let b = 0; b < batches; b++) {
    unknown.push(await perAttempt((i) => post(`ghost-${b}-${i}`, 'wrong-password-123')));
    wrong.push(await perAttempt(() => post('admin', 'wrong-password-123')));
    if ((await post('admin', ADMIN_PASSWORD)) !== 200) throw new Error('the admin could not sign in between batches');
  }
  const mid = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  return { batches, unknownMs: mid(unknown), wrongMs: mid(wrong) };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-'));
const eldFile = path.join(dir, 'eld.json');
const bare = await start(['--import', 'tsx', 'bench/support/bare-fastify.ts'], {}, path.join(dir, 'bare.log'));
const barePid = pidOf(bare.child);
const app = await start(
  ['--import', 'tsx', '--import', './bench/support/event-loop-monitor.ts', 'src/cli.ts', 'serve'],
  {
    PORT: '0',
    // BENCH_DATABASE_URL: measure on PostgreSQL instead (an empty database; the server migrates it).
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? `sqlite:${path.join(dir, 'bench.db')}`,
    FIELDLENS_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FIELDLENS_SAMPLE_DATA: 'off',
    BENCH_ELD_FILE: eldFile,
    LOG_LEVEL: 'info', // the access log is part of what is measured
    // Throughput is measured, not the rate limits (the defaults would answer 429 within a second).
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
    FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
  },
  path.join(dir, 'fieldlens.log'),
);
const appPid = pidOf(app.child);
try {
  const base = `http://127.0.0.1:${app.port}`;
  const login = (await (
    await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    })
  ).json()) as { access_token: string };

  // Warm-up, then measure each target in turn (never two at once: 2 cores).
  await autocannon({ url: `http://127.0.0.1:${bare.port}/healthz`, duration: 2, connections });
  await autocannon({ url: `${base}/healthz`, duration: 2, connections });
  const all: Record<'bare' | 'health' | 'me', Result[]> = { bare: [], health: [], me: [] };
  for (let round = 1; round <= rounds; round++) {
    all.bare.push(await run(barePid, { url: `http://127.0.0.1:${bare.port}/healthz` }));
    all.health.push(await run(appPid, { url: `${base}/healthz` }));
    all.me.push(
      await run(appPid, { url: `${base}/api/v1/auth/me`, headers: { authorization: `Bearer ${login.access_token}` } }),
    );
    const [b, h, m] = [all.bare.at(-1), all.health.at(-1), all.me.at(-1)] as [Result, Result, Result];
    console.log(
      `round ${round}: bare ${b.rps} req/s (${b.cpuUs} µs CPU/req), /healthz ${h.rps} (${((h.rps / b.rps) * 100).toFixed(1)}%; ${h.cpuUs} µs/req), ` +
        `/auth/me ${m.rps} (${((m.rps / h.rps) * 100).toFixed(1)}% of /healthz; ${m.cpuUs} µs/req)`,
    );
  }
  const [bareHealth, health, me] = [median(all.bare), median(all.health), median(all.me)];

  app.child.kill('SIGUSR2'); // reset the event-loop histogram
  await new Promise((r) => setTimeout(r, 200));
  const logins = await run(appPid, {
    url: `${base}/api/v1/auth/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    connections: 8,
  });
  app.child.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
  const failed = await failedLoginCpu(base, appPid);
  const eld = JSON.parse(readFileSync(eldFile, 'utf8')) as Record<string, number>;

  const rows = [
    ['bare Fastify GET /healthz', bareHealth],
    ['FieldLens GET /healthz', health],
    ['FieldLens GET /api/v1/auth/me', me],
    ['FieldLens POST /api/v1/auth/login (8 conns)', logins],
  ] as const;
  console.log(
    `\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load average ${os.loadavg()[0]?.toFixed(2)}; autocannon -c ${connections} -d ${duration}, median of ${rounds} rounds\n`,
  );
  console.log('| target | req/s | server CPU µs/req | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows)
    console.log(`| ${name} | ${r.rps} | ${r.cpuUs} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
  console.log(
    `\nFieldLens /healthz vs bare Fastify: ${((health.rps / bareHealth.rps) * 100).toFixed(1)}% of the throughput (overhead ${(100 - (health.rps / bareHealth.rps) * 100).toFixed(1)}%)`,
  );
  console.log(`/auth/me vs /healthz: ${((me.rps / health.rps) * 100).toFixed(1)}% of the throughput`);
  console.log(`event-loop delay during logins (ms): mean ${eld.mean}, p50 ${eld.p50}, p99 ${eld.p99}, max ${eld.max}`);
  console.log(
    `failed login, server CPU per attempt (median of ${failed.batches} batches of 9): unknown user ${failed.unknownMs.toFixed(1)} ms, ` +
      `wrong password ${failed.wrongMs.toFixed(1)} ms (ratio ${(failed.unknownMs / failed.wrongMs).toFixed(2)})`,
  );
} finally {
  bare.child.kill('SIGTERM');
  app.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dir, { recursive: true, force: true });
}
