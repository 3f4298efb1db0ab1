// Webhooks benchmark: single-field confirmations' latency (p50, p95) with no webhook, then with a webhook on
// field.confirmed + field.level_changed whose receiver answers only after 10 s (the delivery worker running, every
// attempt held to its 10 s deadline), then with a receiver that answers at once. A slow receiver must not slow
// confirmations: the event is one row written in the confirming transaction, sending happens in the background.
// SQLite always; PostgreSQL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set. Run: npm run bench -- webhooks
// Knobs: BENCH_CONFIRMS (default 400 confirmations per phase).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { postgresTarget, sqliteTarget, type Target } from './support/targets.js';

const CONFIRMS = Number(process.env.BENCH_CONFIRMS ?? 400);
const WARMUP = 50;
const PASSWORD = 'bench-passphrase-of-the-boss-0001';
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** A receiver answering 204 after `delayMs`; counts what it received. */
async function receiver(delayMs: number): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      setTimeout(() => response.writeHead(204).end(), delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

async function run(target: Target): Promise<void> {
  const database = target.open();
  const config = loadConfig({
    FIELDLENS_ADMIN_PASSWORD: PASSWORD,
    FIELDLENS_SAMPLE_DATA: 'off',
    LOG_LEVEL: 'warn',
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '0',
    FIELDLENS_RATE_LIMIT_PER_USER: '0',
    FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64'),
    FIELDLENS_WEBHOOK_ALLOW_HTTP: 'on',
    FIELDLENS_WEBHOOK_ALLOW_PRIVATE: 'on',
  });
  const app = await buildApp({
    config: { ...config, database: target.config },
    database,
    clock: systemClock,
    logStream: pino.destination('/dev/null'),
  });
  await app.ready();
  await app.services.bootstrap();
  app.services.startWorkers();
  const inject = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, token?: string) => {
    const response = await app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
  };
  const slow = await receiver(10_000);
  const fast = await receiver(0);
  try {
    const token = (await inject('POST', '/api/v1/auth/login', { username: 'admin', password: PASSWORD }))
      .access_token as string;
    const source = (await inject('POST', '/api/v1/datasources', { name: 'bench', type: 'postgresql' }, token))
      .id as string;
    const need = WARMUP + 3 * CONFIRMS + 25;
    const fields = Array.from({ length: need }, (_, i) => ({
      table_name: `t_${i % 50}`,
      field_name: `c_${i}`,
      classification_chain_path: 'Technical/Record ID',
    }));
    const ids = (await inject('POST', '/api/v1/fields/import', { datasource_id: source, fields }, token))
      .field_ids as string[];
    let next = 0;
    const confirmSome = async (n: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const started = performance.now();
        // A level change: each confirmation emits field.confirmed and field.level_changed.
        await inject('POST', `/api/v1/classify/fields/${ids[next++]}/confirm`, { lock_level: 'L3' }, token);
        times.push(performance.now() - started);
      }
      return times;
    };
    await confirmSome(WARMUP);
    const report = (label: string, times: number[]) => {
      times.sort((a, b) => a - b);
      console.log(
        `[${target.kind}] ${label.padEnd(34)} p50 ${quantile(times, 0.5).toFixed(2)} ms  p95 ${quantile(times, 0.95).toFixed(2)} ms  (${times.length} confirmations)`,
      );
    };

    // The machine is shared: blocks of 25 confirmations alternate between no enabled webhook and the slow one enabled,
    // so a change of load over the run falls on both alike. While disabled, the slow webhook's attempts already sent
    // stay held (idle sockets); no new event is queued.
    const slowHook = (
      await inject(
        'POST',
        '/api/v1/webhooks',
        { url: slow.url, events: ['field.confirmed', 'field.level_changed'], enabled: false },
        token,
      )
    ).id as string;
    const none: number[] = [];
    const withSlow: number[] = [];
    for (let block = 0; block < CONFIRMS / 25; block++) {
      await app.inject({
        method: 'PATCH',
        url: `/api/v1/webhooks/${slowHook}`,
        payload: { enabled: false },
        headers: { authorization: `Bearer ${token}` },
      });
      none.push(...(await confirmSome(25)));
      await app.inject({
        method: 'PATCH',
        url: `/api/v1/webhooks/${slowHook}`,
        payload: { enabled: true },
        headers: { authorization: `Bearer ${token}` },
      });
      withSlow.push(...(await confirmSome(25)));
    }
    report('no webhook', none);
    report('receiver answering after 10 s', withSlow);
    console.log(
      `[${target.kind}]   meanwhile the slow receiver got ${slow.received()} requests (at most 16 attempts to one webhook at a time, each held 10 s)`,
    );
    await inject('DELETE', `/api/v1/webhooks/${slowHook}`, undefined, token);

    await inject(
      'POST',
      '/api/v1/webhooks',
      { url: fast.url, events: ['field.confirmed', 'field.level_changed'] },
      token,
    );
    const started = performance.now();
    report('receiver answering at once', await confirmSome(CONFIRMS));
    await app.services.webhookWorker.drain();
    const seconds = (performance.now() - started) / 1000;
    const states = await database.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'last_error', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy(['status', 'last_error'])
      .execute();
    console.log(
      `[${target.kind}]   deliveries: ${states.map((r) => `${r.status}${r.last_error ? ` (${r.last_error})` : ''}: ${Number(r.n)}`).join(', ')}`,
    );
    console.log(
      `[${target.kind}]   the fast receiver got ${fast.received()} of ${2 * CONFIRMS} events, all within ${seconds.toFixed(1)} s of the first confirmation`,
    );
  } finally {
    await app.close();
    await slow.close();
    await fast.close();
    await database.close();
  }
}

for (const target of [await sqliteTarget(), ...(PG_URL ? [await postgresTarget(PG_URL)] : [])]) {
  try {
    await run(target);
  } finally {
    await target.dispose();
  }
}
