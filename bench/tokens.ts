// API tokens (issue 27): what authenticating a request costs with an API token (`flk_…`) against a login's JWT access
// token, on the same protected route (GET /api/v1/auth/me: authentication plus a trivial handler), in one process on
// a fresh database, through Fastify's inject (no sockets: the figure is the server's own work). The three callers
//   - jwt: the access token of a password login (verified-token memory; on SQLite the user row is remembered too),
//   - token: an API token with all the user's permissions (HMAC, lookup by hash, the user's row, every request),
//   - scoped: an API token given two permissions (the same, plus the intersection),
// are measured in interleaved rounds (jwt, token, scoped, jwt, …) so a burst of load elsewhere hits all alike; each
// round is N sequential requests; the table shows per-request p50 and p90 over all rounds.
//
//   npx tsx bench/tokens.ts [--requests 2000] [--rounds 5]
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/tokens.ts   (PostgreSQL, a throw-away schema)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '5' } },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const PASSWORD = 'bench-api-token-passphrase-01';

const postgresUrl = process.env.BENCH_DATABASE_URL;
const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldlens-bench-tokens-'));
const schema = postgresUrl ? `fl_bench_${randomBytes(6).toString('hex')}` : undefined;
if (postgresUrl && schema) {
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
}
const config = loadConfig({
  DATABASE_URL: postgresUrl ?? `sqlite:${path.join(dir, 'bench.db')}`,
  FIELDLENS_SAMPLE_DATA: 'off',
  FIELDLENS_ADMIN_PASSWORD: PASSWORD,
  LOG_LEVEL: 'warn',
  FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
  FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
});
const database = openDatabase(config.database, schema ? { schema } : {});
const app = await buildApp({ config, database });

try {
  await app.ready();
  await app.services.bootstrap();
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { username: 'admin', password: PASSWORD },
  });
  const jwt = (JSON.parse(login.body) as { access_token: string }).access_token;
  const create = async (payload: Record<string, unknown>): Promise<string> => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: { authorization: `Bearer ${jwt}` },
      payload: { name: 'bench', expires_in_days: 1, ...payload },
    });
    if (response.statusCode !== 201) throw new Error(`creating a token: ${response.statusCode} ${response.body}`);
    return (JSON.parse(response.body) as { token: string }).token;
  };
  const callers = { jwt, token: await create({}), scoped: await create({ permissions: ['field:read', 'scan:read'] }) };

  const samples: Record<keyof typeof callers, number[]> = { jwt: [], token: [], scoped: [] };
  const runRound = async (name: keyof typeof callers, n: number, keep: boolean): Promise<void> => {
    const headers = { authorization: `Bearer ${callers[name]}` };
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const response = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers });
      const us = (performance.now() - t0) * 1000;
      if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${response.body}`);
      if (keep) samples[name].push(us);
    }
  };
  for (const name of Object.keys(callers) as Array<keyof typeof callers>) await runRound(name, 300, false); // warm-up
  for (let r = 0; r < rounds; r++)
    for (const name of Object.keys(callers) as Array<keyof typeof callers>) await runRound(name, requests, true);

  const pct = (xs: number[], p: number): number =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, node ${process.version}, load ${os.loadavg()[0]?.toFixed(2)}; ` +
      `${database.kind}; GET /api/v1/auth/me, ${rounds} rounds × ${requests} sequential requests per caller`,
  );
  console.log('| caller | p50 µs | p90 µs |');
  console.log('|---|---:|---:|');
  for (const [name, xs] of Object.entries(samples))
    console.log(`| ${name} | ${pct(xs, 0.5).toFixed(0)} | ${pct(xs, 0.9).toFixed(0)} |`);
} finally {
  await app.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
  if (postgresUrl && schema) {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}
