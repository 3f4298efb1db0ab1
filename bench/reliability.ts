/**
 * Reliability suite (issue 19), against real server processes built from this checkout (`dist/`, built first):
 *
 *   load  Mixed load (minibars, confirm, batch-confirm, defer, list, me, refresh) from --clients clients for --duration
 *         seconds, on SQLite, on PostgreSQL, and on two instances sharing one PostgreSQL database. Counts 5xx and
 *         transport errors, checks that the audit log gained exactly one entry per 2xx decision (a confirm, each
 *         field a batch confirmed, a defer), and runs `fieldlens audit verify`.
 *   kill  --kills times: SIGKILL the server while batch-confirms are in flight, restart it on the same database and
 *         time until /readyz answers 200; then check that every batch was all-or-nothing (its audit entries and its
 *         confirmed fields, counted by request id: 0 or the whole batch) and that the chain verifies.
 *   fuzz  The fuzzer of bench/reliability/fuzz.ts over every operation of /openapi.json, every case, over HTTP.
 *   shutdown  --shutdowns times: three 500-id minibars calls in flight (a busy event loop), SIGTERM, and at once 20
 *         `/auth/me` on new connections and 20 on idle keep-alive ones (all sent within the default 1 s grace period);
 *         counts the answers, resets and refusals (every one must be answered), the exit code and the time to exit.
 *
 *   npx tsx bench/reliability.ts [--parts load,kill,fuzz,shutdown] [--databases sqlite,postgres,postgres-2]
 *                                [--duration 60] [--clients 200] [--kills 10] [--shutdowns 5]
 * PostgreSQL from BENCH_DATABASE_URL or TEST_DATABASE_URL (a throw-away database is created and dropped per run).
 * The servers run with the request rate limits off (FIELDLENS_RATE_LIMIT_PER_ADDRESS/_PER_USER=0): every client
 * comes from 127.0.0.1, so a per-address limit would measure the limiter, not the service.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { fuzz, type OpenApiDocument } from './reliability/fuzz.js';

const { values } = parseArgs({
  options: {
    parts: { type: 'string', default: 'load,kill,fuzz,shutdown' },
    databases: { type: 'string', default: 'sqlite,postgres,postgres-2' },
    duration: { type: 'string', default: '60' },
    clients: { type: 'string', default: '200' },
    kills: { type: 'string', default: '10' },
    shutdowns: { type: 'string', default: '5' },
    fields: { type: 'string', default: '5000' },
  },
});
const PARTS = new Set(values.parts.split(','));
const DATABASES = values.databases.split(',');
const DURATION_S = Number(values.duration);
const CLIENTS = Number(values.clients);
const KILLS = Number(values.kills);
const SHUTDOWNS = Number(values.shutdowns);
const FIELDS = Number(values.fields);
const ADMIN_PASSWORD = 'reliability-bench-passphrase-0001';
const USER_PASSWORD = 'reliability-reviewer-passphrase-01';
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const workDir = mkdtempSync(path.join(os.tmpdir(), 'fieldlens-reliability-'));

// ---------------------------------------------------------------------------------------------------------------
// HTTP client: node:http with a keep-alive pool (cheaper than fetch on a 2-core machine shared with the servers).

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function call(
  port: number,
  method: string,
  url: string,
  options: {
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    raw?: string;
    agent?: http.Agent | false;
  } = {},
): Promise<Answer> {
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent: options.agent ?? agent,
        headers: {
          ...(payload !== undefined && options.raw === undefined ? { 'content-type': 'application/json' } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...options.headers,
          ...(payload !== undefined ? { 'content-length': String(Buffer.byteLength(payload)) } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

async function callJson<T>(
  port: number,
  method: string,
  url: string,
  options: Parameters<typeof call>[3] = {},
): Promise<T> {
  const answer = await call(port, method, url, options);
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return (answer.body ? JSON.parse(answer.body) : undefined) as T;
}

// ---------------------------------------------------------------------------------------------------------------
// Databases and server processes.

interface Target {
  name: string;
  databaseUrl: string;
  instances: number;
  /** Reads audit rows / field states directly, for the checks. */
  query<T>(sqlText: string, params?: unknown[]): Promise<T[]>;
  dispose(): Promise<void>;
}

async function makeTarget(kind: string): Promise<Target> {
  if (kind === 'sqlite') {
    const file = path.join(workDir, `${randomUUID()}.db`);
    return {
      name: 'SQLite',
      databaseUrl: `sqlite:${file}`,
      instances: 1,
      async query<T>(sqlText: string, params: unknown[] = []) {
        const db = new BetterSqlite3(file, { readonly: true });
        try {
          return db.prepare(sqlText.replace(/\$\d+/g, '?')).all(...params) as T[];
        } finally {
          db.close();
        }
      },
      async dispose() {},
    };
  }
  if (!PG_URL) throw new Error('PostgreSQL targets need BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const name = `fl_reliability_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  return {
    name: kind === 'postgres-2' ? 'PostgreSQL, 2 instances' : 'PostgreSQL',
    databaseUrl: url.toString(),
    instances: kind === 'postgres-2' ? 2 : 1,
    async query<T>(sqlText: string, params: unknown[] = []) {
      return (await pool.query(sqlText, params)).rows as T[];
    },
    async dispose() {
      await pool.end();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  port: number;
  /** ms from spawn to the first /readyz 200. */
  readyMs: number;
}

async function startServer(target: Target, log: string, extraEnv: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const out = openSync(log, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/cli.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: target.databaseUrl,
      FIELDLENS_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FIELDLENS_SAMPLE_DATA: 'off',
      LOG_LEVEL: 'warn',
      MALLOC_ARENA_MAX: '2',
      // 200 clients share one address (127.0.0.1) and 4 users: request rate limits would turn the load into 429s,
      // so they are off here (0 = no limit); the login throttle (failures only) stays on.
      FIELDLENS_RATE_LIMIT_PER_ADDRESS: '0',
      FIELDLENS_RATE_LIMIT_PER_USER: '0',
      ...extraEnv,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(25)) {
    if (exited !== undefined)
      throw new Error(`server exited with ${exited}: ${readFileSync(log, 'utf8').slice(-2000)}`);
    try {
      const answer = await call(port, 'GET', '/readyz', { agent: false });
      if (answer.status === 200) return { child, port, readyMs: performance.now() - started };
    } catch {
      // not listening yet
    }
  }
  child.kill('SIGKILL');
  throw new Error('server did not become ready');
}

async function stopServer(server: Server): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
  server.child.kill('SIGTERM');
  return exited;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function auditVerify(target: Target): { ok: boolean; output: string } {
  try {
    const output = execFileSync(process.execPath, ['dist/cli.js', 'audit', 'verify'], {
      env: { ...process.env, DATABASE_URL: target.databaseUrl },
      encoding: 'utf8',
    });
    return { ok: true, output: output.trim() };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error).trim() };
  }
}

/** Logs in as admin, creates reviewers and a data source with `count` fields; answers the field ids. */
async function seed(
  port: number,
  count: number,
  reviewers: number,
): Promise<{ fieldIds: string[]; usernames: string[] }> {
  const { access_token: admin } = await callJson<{ access_token: string }>(port, 'POST', '/api/v1/auth/login', {
    body: { username: 'admin', password: ADMIN_PASSWORD },
  });
  const source = await callJson<{ id: string }>(port, 'POST', '/api/v1/datasources', {
    token: admin,
    body: { name: `reliability-${randomUUID().slice(0, 8)}`, type: 'postgresql' },
  });
  const fieldIds: string[] = [];
  const words = [
    'email',
    'phone',
    'name',
    'address',
    'birth_date',
    'iban',
    'card_number',
    'status',
    'created_at',
    'amount',
    'city',
    'country',
    'notes',
    'ip_address',
    'salary',
  ];
  for (let offset = 0; offset < count; offset += 2500) {
    const fields = Array.from({ length: Math.min(2500, count - offset) }, (_, i) => {
      const n = offset + i;
      return {
        table_name: `table_${Math.floor(n / 25)}`,
        field_name: `${words[n % words.length]}_${n}`,
        data_type: n % 3 === 0 ? 'varchar(255)' : 'integer',
      };
    });
    const result = await callJson<{ field_ids: string[] }>(port, 'POST', '/api/v1/fields/import', {
      token: admin,
      body: { datasource_id: source.id, fields },
    });
    fieldIds.push(...result.field_ids);
  }
  const usernames: string[] = [];
  for (let i = 0; i < reviewers; i += 1) {
    const username = `reviewer-${i}-${randomUUID().slice(0, 6)}`;
    await callJson(port, 'POST', '/api/v1/users', {
      token: admin,
      body: { username, password: USER_PASSWORD, email: `${username}@example.com`, roles: ['operator'] },
    });
    usernames.push(username);
  }
  return { fieldIds, usernames };
}

// ---------------------------------------------------------------------------------------------------------------
// (a) Mixed load.

const OPERATIONS = ['minibars', 'confirm', 'batch-confirm', 'defer', 'list', 'me', 'refresh'] as const;
type Op = (typeof OPERATIONS)[number];
/** Share of each operation in the mix (sums to 100). */
const WEIGHTS: Record<Op, number> = {
  minibars: 20,
  confirm: 15,
  'batch-confirm': 8,
  defer: 12,
  list: 20,
  me: 20,
  refresh: 5,
};

interface OpStats {
  ok: number;
  client: number;
  server: number;
  transport: number;
  latencies: number[];
}

function pick(): Op {
  let roll = Math.random() * 100;
  for (const op of OPERATIONS) {
    roll -= WEIGHTS[op];
    if (roll < 0) return op;
  }
  return 'me';
}

function sample<T>(items: readonly T[], n: number): T[] {
  return Array.from({ length: n }, () => items[Math.floor(Math.random() * items.length)] as T);
}

async function mixedLoad(kind: string): Promise<Record<string, unknown>> {
  const target = await makeTarget(kind);
  const servers: Server[] = [];
  try {
    for (let i = 0; i < target.instances; i += 1)
      servers.push(await startServer(target, path.join(workDir, `load-${kind}-${i}.log`)));
    const ports = servers.map((s) => s.port);
    // The trial license allows 5 users: the admin and 4 reviewers, whose sessions the clients share out.
    const { fieldIds, usernames } = await seed(ports[0] as number, FIELDS, 4);
    const startSeq = Number(
      (await target.query<{ seq: number | null }>('select max(seq) as seq from audit_log'))[0]?.seq ?? 0,
    );

    // Each client logs in once (its own session, so its refresh chain is its own), on the instances in turn.
    const clients: Array<{ port: number; access: string; refresh: string }> = [];
    for (let i = 0; i < CLIENTS; i += 1) {
      const port = ports[i % ports.length] as number;
      const session = await callJson<{ access_token: string; refresh_token: string }>(
        port,
        'POST',
        '/api/v1/auth/login',
        { body: { username: usernames[i % usernames.length], password: USER_PASSWORD } },
      );
      clients.push({ port, access: session.access_token, refresh: session.refresh_token });
    }

    const stats = Object.fromEntries(
      OPERATIONS.map((op) => [op, { ok: 0, client: 0, server: 0, transport: 0, latencies: [] } as OpStats]),
    ) as Record<Op, OpStats>;
    let decisions = 0;
    const serverErrors: string[] = [];
    const end = Date.now() + DURATION_S * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (Date.now() < end) {
          const op = pick();
          const started = performance.now();
          try {
            let answer: Answer;
            switch (op) {
              case 'minibars':
                answer = await call(client.port, 'POST', '/api/v1/classify/fields/embedding-minibars', {
                  token: client.access,
                  body: { field_ids: sample(fieldIds, 20) },
                });
                break;
              case 'confirm':
                answer = await call(client.port, 'POST', `/api/v1/classify/fields/${sample(fieldIds, 1)[0]}/confirm`, {
                  token: client.access,
                  body: {},
                });
                if (answer.status === 200) decisions += 1;
                break;
              case 'batch-confirm':
                answer = await call(client.port, 'POST', '/api/v1/classify/fields/batch-confirm', {
                  token: client.access,
                  body: { field_ids: sample(fieldIds, 50) },
                });
                if (answer.status === 200)
                  decisions += (JSON.parse(answer.body) as { confirmed: string[] }).confirmed.length;
                break;
              case 'defer':
                answer = await call(client.port, 'POST', `/api/v1/classify/fields/${sample(fieldIds, 1)[0]}/defer`, {
                  token: client.access,
                  body: { reason: 'Needs the data owner' },
                });
                if (answer.status === 200) decisions += 1;
                break;
              case 'list':
                answer = await call(client.port, 'GET', '/api/v1/fields?limit=50&sort=outlier_score', {
                  token: client.access,
                });
                break;
              case 'me':
                answer = await call(client.port, 'GET', '/api/v1/auth/me', { token: client.access });
                break;
              case 'refresh':
                answer = await call(client.port, 'POST', '/api/v1/auth/refresh', {
                  body: { refresh_token: client.refresh },
                });
                if (answer.status === 200) {
                  const pair = JSON.parse(answer.body) as { access_token: string; refresh_token: string };
                  client.access = pair.access_token;
                  client.refresh = pair.refresh_token;
                }
                break;
            }
            const s = stats[op];
            s.latencies.push(performance.now() - started);
            if (answer.status >= 500) {
              s.server += 1;
              if (serverErrors.length < 5) serverErrors.push(`${op} ${answer.status} ${answer.body.slice(0, 200)}`);
            } else if (answer.status >= 400) s.client += 1;
            else s.ok += 1;
          } catch (error) {
            stats[op].transport += 1;
            if (serverErrors.length < 5)
              serverErrors.push(`${op} transport: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }),
    );

    const auditDecisions = Number(
      (
        await target.query<{ n: number | string }>(
          "select count(*) as n from audit_log where seq > $1 and action in ('field.confirmed', 'field.deferred')",
          [startSeq],
        )
      )[0]?.n ?? 0,
    );
    const exitCodes: Array<number | null> = [];
    for (const server of servers) exitCodes.push(await stopServer(server));
    const verify = auditVerify(target);
    const deadlocks = servers
      .map(
        (_, i) =>
          (readFileSync(path.join(workDir, `load-${kind}-${i}.log`), 'utf8').match(/deadlock detected/g) ?? []).length,
      )
      .reduce((a, b) => a + b, 0);
    const total = OPERATIONS.reduce(
      (sum, op) => sum + stats[op].ok + stats[op].client + stats[op].server + stats[op].transport,
      0,
    );
    const perOp = Object.fromEntries(
      OPERATIONS.map((op) => {
        const s = stats[op];
        const sorted = [...s.latencies].sort((a, b) => a - b);
        const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
        return [
          op,
          { ok: s.ok, '4xx': s.client, '5xx': s.server, transport: s.transport, p50: at(0.5), p99: at(0.99) },
        ];
      }),
    );
    return {
      target: target.name,
      clients: CLIENTS,
      seconds: DURATION_S,
      requests: total,
      rps: Math.round(total / DURATION_S),
      '5xx': OPERATIONS.reduce((sum, op) => sum + stats[op].server, 0),
      transport: OPERATIONS.reduce((sum, op) => sum + stats[op].transport, 0),
      decisions2xx: decisions,
      auditDecisions: Number(auditDecisions),
      auditMatches: Number(auditDecisions) === decisions,
      auditVerify: verify,
      deadlocksLogged: deadlocks,
      exitCodes,
      perOp,
      serverErrors,
    };
  } finally {
    for (const server of servers) server.child.kill('SIGKILL');
    await target.dispose();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (b) kill -9 mid batch-confirm.

async function killRuns(kind: string): Promise<Record<string, unknown>> {
  const target = await makeTarget(kind);
  const log = path.join(workDir, `kill-${kind}.log`);
  const BATCH = 100;
  const IN_FLIGHT = 4;
  let server = await startServer(target, log);
  try {
    const { fieldIds, usernames } = await seed(server.port, KILLS * IN_FLIGHT * BATCH * 3, 1);
    let next = 0;
    const batches = new Map<string, string[]>();
    const readyMs: number[] = [];
    let answeredBeforeKill = 0;
    for (let round = 0; round < KILLS; round += 1) {
      const { access_token: token } = await callJson<{ access_token: string }>(
        server.port,
        'POST',
        '/api/v1/auth/login',
        { body: { username: usernames[0], password: USER_PASSWORD } },
      );
      let killed = false;
      let answeredThisRound = 0;
      const port = server.port;
      // IN_FLIGHT clients send batches of fresh (never confirmed) fields until the kill; each carries its own request id.
      const clients = Array.from({ length: IN_FLIGHT }, async () => {
        while (!killed && next + BATCH <= fieldIds.length) {
          const ids = fieldIds.slice(next, next + BATCH);
          next += BATCH;
          const requestId = `kill-${round}-${randomUUID()}`;
          batches.set(requestId, ids);
          try {
            const answer = await call(port, 'POST', '/api/v1/classify/fields/batch-confirm', {
              token,
              body: { field_ids: ids },
              headers: { 'x-request-id': requestId },
            });
            if (answer.status === 200) {
              answeredBeforeKill += 1;
              answeredThisRound += 1;
            }
          } catch {
            // the kill
          }
        }
      });
      // Kill once batches are committing (at least one answered, so the round has whole batches and in-flight ones),
      // a random moment later; at most 30 s in.
      for (const deadline = Date.now() + 30_000; answeredThisRound === 0 && Date.now() < deadline;) await sleep(20);
      await sleep(Math.random() * 300);
      killed = true;
      server.child.kill('SIGKILL');
      await Promise.all(clients);
      await new Promise((resolve) =>
        server.child.exitCode !== null || server.child.signalCode !== null
          ? resolve(undefined)
          : server.child.once('exit', resolve),
      );
      server = await startServer(target, log);
      readyMs.push(Math.round(server.readyMs));
    }
    await stopServer(server);

    // All-or-nothing per batch: its audit entries and its confirmed fields are 0 or the whole batch, and agree.
    const audited = new Map<string, number>();
    for (const row of await target.query<{ request_id: string; n: number | string }>(
      "select request_id, count(*) as n from audit_log where action = 'field.confirmed' and request_id like 'kill-%' group by request_id",
    )) {
      audited.set(row.request_id, Number(row.n));
    }
    const confirmed = new Set(
      (await target.query<{ id: string }>("select id from fields where review_status = 'confirmed'")).map((r) => r.id),
    );
    let whole = 0;
    let none = 0;
    const half: string[] = [];
    for (const [requestId, ids] of batches) {
      const entries = audited.get(requestId) ?? 0;
      const fieldsConfirmed = ids.filter((id) => confirmed.has(id)).length;
      if (entries === ids.length && fieldsConfirmed === ids.length) whole += 1;
      else if (entries === 0 && fieldsConfirmed === 0) none += 1;
      else half.push(`${requestId}: ${entries} entries, ${fieldsConfirmed} fields of ${ids.length}`);
    }
    const verify = auditVerify(target);
    return {
      target: target.name,
      kills: KILLS,
      batchesSent: batches.size,
      answered200: answeredBeforeKill,
      committedWhole: whole,
      notCommitted: none,
      halfBatches: half.length,
      halfExamples: half.slice(0, 3),
      readyMs,
      maxReadyMs: Math.max(...readyMs),
      auditVerify: verify,
    };
  } finally {
    server.child.kill('SIGKILL');
    await target.dispose();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (c) Fuzzer over HTTP.

async function fuzzRun(kind: string): Promise<Record<string, unknown>> {
  const target = await makeTarget(kind);
  const server = await startServer(target, path.join(workDir, `fuzz-${kind}.log`));
  try {
    await seed(server.port, 50, 0);
    const { access_token: token } = await callJson<{ access_token: string }>(
      server.port,
      'POST',
      '/api/v1/auth/login',
      { body: { username: 'admin', password: ADMIN_PASSWORD } },
    );
    const doc = await callJson<OpenApiDocument>(server.port, 'GET', '/openapi.json');
    const started = performance.now();
    const report = await fuzz({
      doc,
      token,
      seed: 19,
      concurrency: 8,
      send: async (request) => {
        const answer = await call(server.port, request.method, request.url, {
          headers: request.headers,
          ...(request.payload === undefined ? {} : { raw: request.payload }),
        });
        return { status: answer.status, headers: answer.headers, body: answer.body };
      },
    });
    const exitCode = await stopServer(server);
    return {
      target: target.name,
      operations: report.operations,
      requests: report.requests,
      seconds: Math.round((performance.now() - started) / 1000),
      byStatus: report.byStatus,
      failures: report.failures.length,
      failureExamples: report.failures.slice(0, 5).map((f) => `${f.operation} [${f.case}] ${f.reason}`),
      exitCode,
    };
  } finally {
    server.child.kill('SIGKILL');
    await target.dispose();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (d) SIGTERM while the event loop is busy (issue 30, item 6).

async function shutdownRuns(kind: string): Promise<Record<string, unknown>> {
  const target = await makeTarget(kind);
  const log = path.join(workDir, `shutdown-${kind}.log`);
  let server = await startServer(target, log);
  const tally = { answered: 0, reset: 0, refused: 0, other: 0 };
  const heavy = { answered: 0, failed: 0 };
  const exitCodes: Array<number | null> = [];
  const exitMs: number[] = [];
  const examples: string[] = [];
  try {
    const { fieldIds, usernames } = await seed(server.port, 2000, 1);
    for (let round = 0; round < SHUTDOWNS; round += 1) {
      if (round > 0) server = await startServer(target, log);
      const { port } = server;
      const { access_token: token } = await callJson<{ access_token: string }>(port, 'POST', '/api/v1/auth/login', {
        body: { username: usernames[0], password: USER_PASSWORD },
      });
      // 20 keep-alive connections, used once and idle since.
      const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 20 });
      await Promise.all(
        Array.from({ length: 20 }, () => call(port, 'GET', '/api/v1/auth/me', { token, agent: keepAlive })),
      );
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
      const heavyCalls = Array.from({ length: 3 }, () =>
        call(port, 'POST', '/api/v1/classify/fields/embedding-minibars', {
          token,
          body: { field_ids: sample(fieldIds, 500) },
          agent: false,
        }).then(
          (a) => (a.status === 200 ? (heavy.answered += 1) : (heavy.failed += 1)),
          () => (heavy.failed += 1),
        ),
      );
      await sleep(20);
      const signalled = performance.now();
      server.child.kill('SIGTERM');
      const light = [
        ...Array.from({ length: 20 }, () => call(port, 'GET', '/api/v1/auth/me', { token, agent: false })),
        ...Array.from({ length: 20 }, () => call(port, 'GET', '/api/v1/auth/me', { token, agent: keepAlive })),
      ].map((request) =>
        request.then(
          (a) => {
            if (a.status === 200) tally.answered += 1;
            else {
              tally.other += 1;
              if (examples.length < 5) examples.push(`${a.status} ${a.body.slice(0, 120)}`);
            }
          },
          (error: NodeJS.ErrnoException) => {
            if (error.code === 'ECONNREFUSED') tally.refused += 1;
            else tally.reset += 1;
            if (examples.length < 5) examples.push(error.code ?? error.message);
          },
        ),
      );
      await Promise.all([...light, ...heavyCalls]);
      exitCodes.push(await exited);
      exitMs.push(Math.round(performance.now() - signalled));
      keepAlive.destroy();
    }
    return {
      target: target.name,
      rounds: SHUTDOWNS,
      meRequests: SHUTDOWNS * 40,
      ...tally,
      heavyAnswered: heavy.answered,
      heavyFailed: heavy.failed,
      exitCodes,
      exitMs,
      examples,
    };
  } finally {
    server.child.kill('SIGKILL');
    await target.dispose();
  }
}

// ---------------------------------------------------------------------------------------------------------------

console.log(`building dist/ …`);
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
try {
  for (const kind of DATABASES) {
    if (PARTS.has('load')) console.log(JSON.stringify({ part: 'load', ...(await mixedLoad(kind)) }, null, 1));
    if (PARTS.has('kill') && kind !== 'postgres-2')
      console.log(JSON.stringify({ part: 'kill', ...(await killRuns(kind)) }, null, 1));
    if (PARTS.has('fuzz') && kind !== 'postgres-2')
      console.log(JSON.stringify({ part: 'fuzz', ...(await fuzzRun(kind)) }, null, 1));
    if (PARTS.has('shutdown') && kind !== 'postgres-2')
      console.log(JSON.stringify({ part: 'shutdown', ...(await shutdownRuns(kind)) }, null, 1));
  }
} finally {
  agent.destroy();
  rmSync(workDir, { recursive: true, force: true });
}
