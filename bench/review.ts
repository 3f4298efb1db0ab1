// Review and audit benchmark: confirms/s (single, and 500-field batches) with their audit entries, and audit
// export throughput for a large log with RSS sampled while it streams. SQLite always; PostgreSQL when
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set. Run: npx tsx bench/review.ts
// Knobs: BENCH_SINGLE (default 1000 single confirms), BENCH_BATCHES (default 10 × 500), BENCH_AUDIT_ENTRIES (default 1,000,000).
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { SYSTEM_ACTOR, type AuditEvent } from '../src/modules/audit/audit.service.js';
import { postgresTarget, sqliteTarget, type Target } from './support/targets.js';

const SINGLE = Number(process.env.BENCH_SINGLE ?? 1000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const AUDIT_ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const PASSWORD = 'bench-passphrase-of-the-boss-0001';
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function run(target: Target): Promise<void> {
  const database = target.open();
  const config = loadConfig({
    FIELDLENS_ADMIN_PASSWORD: PASSWORD,
    FIELDLENS_SAMPLE_DATA: 'off',
    LOG_LEVEL: 'warn',
    FIELDLENS_RATE_LIMIT_PER_ADDRESS: '1000000000',
    FIELDLENS_RATE_LIMIT_PER_USER: '1000000000',
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
  const inject = async (method: 'GET' | 'POST', url: string, payload?: object, token?: string) => {
    const response = await app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    return JSON.parse(response.body) as Record<string, unknown>;
  };
  try {
    const token = (await inject('POST', '/api/v1/auth/login', { username: 'admin', password: PASSWORD }))
      .access_token as string;
    const source = (await inject('POST', '/api/v1/datasources', { name: 'bench', type: 'postgresql' }, token))
      .id as string;
    const need = SINGLE + BATCHES * 500;
    const ids: string[] = [];
    for (let offset = 0; offset < need; offset += 5000) {
      const fields = Array.from({ length: Math.min(5000, need - offset) }, (_, i) => ({
        table_name: `t_${(offset + i) % 50}`,
        field_name: `c_${offset + i}`,
        classification_chain_path: 'Technical/Record ID',
      }));
      ids.push(
        ...((await inject('POST', '/api/v1/fields/import', { datasource_id: source, fields }, token))
          .field_ids as string[]),
      );
    }

    // Single confirms, one request at a time (HTTP layer through app.inject, auth, transaction, audit append).
    let started = performance.now();
    for (let i = 0; i < SINGLE; i += 1)
      await inject('POST', `/api/v1/classify/fields/${ids[i]}/confirm`, { lock_level: 'L3' }, token);
    const single = SINGLE / ((performance.now() - started) / 1000);

    // Single confirms, 16 in flight: concurrent writers all serialise on the audit chain head.
    const concurrentIds = ids.slice(0, SINGLE);
    started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < concurrentIds.length) {
          const id = concurrentIds[next++];
          await inject('POST', `/api/v1/classify/fields/${id}/confirm`, { lock_level: 'L4' }, token);
        }
      }),
    );
    const concurrent = SINGLE / ((performance.now() - started) / 1000);

    // 500-field batches.
    started = performance.now();
    for (let b = 0; b < BATCHES; b += 1) {
      const batch = ids.slice(SINGLE + b * 500, SINGLE + (b + 1) * 500);
      const result = await inject(
        'POST',
        '/api/v1/classify/fields/batch-confirm',
        { field_ids: batch, lock_level: 'L2' },
        token,
      );
      if ((result.confirmed as string[]).length !== 500) throw new Error('batch did not confirm 500');
    }
    const batchSeconds = (performance.now() - started) / 1000;

    console.log(`[${target.kind}] single confirm, sequential: ${single.toFixed(0)}/s`);
    console.log(`[${target.kind}] single confirm, 16 concurrent: ${concurrent.toFixed(0)}/s`);
    console.log(
      `[${target.kind}] batch-confirm 500: ${(BATCHES / batchSeconds).toFixed(2)} batches/s = ${((BATCHES * 500) / batchSeconds).toFixed(0)} fields/s (${((batchSeconds / BATCHES) * 1000).toFixed(0)} ms per batch)`,
    );

    // Grow the log to AUDIT_ENTRIES through the real append path, 5000 entries per transaction.
    const have = Number((await database.db.selectFrom('audit_head').select('seq').executeTakeFirstOrThrow()).seq);
    started = performance.now();
    for (let n = have; n < AUDIT_ENTRIES; n += 5000) {
      const events: AuditEvent[] = Array.from({ length: Math.min(5000, AUDIT_ENTRIES - n) }, (_, i) => ({
        action: 'bench.event',
        targetType: 'field',
        targetId: ids[(n + i) % ids.length] ?? null,
        details: {
          before: { level: 'L2', review_status: 'unreviewed' },
          after: { level: 'L3', review_status: 'confirmed' },
          note: 'x'.repeat(40),
        },
      }));
      await database.db.transaction().execute((trx) => app.services.audit.record(trx, SYSTEM_ACTOR, events));
    }
    const total = Math.max(have, AUDIT_ENTRIES);
    console.log(
      `[${target.kind}] appended ${total - have} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // Export over a real socket (app.inject would buffer the body), discarding bytes; RSS sampled every 200 ms.
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    for (const format of ['ndjson', 'csv'] as const) {
      if (global.gc) global.gc();
      const rssBefore = process.memoryUsage().rss;
      const samples: number[] = [];
      const timer = setInterval(() => samples.push(process.memoryUsage().rss), 200);
      started = performance.now();
      const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((resolve, reject) => {
        http
          .get(
            {
              host: '127.0.0.1',
              port,
              path: `/api/v1/audit-logs/export?format=${format}`,
              headers: { authorization: `Bearer ${token}` },
            },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`export ${res.statusCode}`));
              let count = 0;
              let lineCount = 0;
              res.on('data', (chunk: Buffer) => {
                count += chunk.length;
                for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lineCount += 1;
              });
              res.on('end', () => resolve({ bytes: count, lines: lineCount }));
              res.on('error', reject);
            },
          )
          .on('error', reject);
      });
      clearInterval(timer);
      const seconds = (performance.now() - started) / 1000;
      const sorted = [...samples].sort((a, b) => a - b);
      const entries = format === 'csv' ? lines - 1 : lines;
      console.log(
        `[${target.kind}] export ${format}: ${entries} entries, ${mib(bytes)} MiB in ${seconds.toFixed(1)} s = ${(entries / seconds).toFixed(0)} entries/s; ` +
          `RSS before ${mib(rssBefore)} MiB, during min ${mib(sorted[0] ?? rssBefore)} / median ${mib(sorted[Math.floor(sorted.length / 2)] ?? rssBefore)} / max ${mib(sorted.at(-1) ?? rssBefore)} MiB (${samples.length} samples)`,
      );
    }

    started = performance.now();
    const verified = await app.services.auditLog.verifyChain();
    console.log(
      `[${target.kind}] verify: ${JSON.stringify({ ok: verified.ok, entries: verified.entries })} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await app.close();
    await database.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, ${mib(os.totalmem())} MiB RAM`,
  );
  const targets: Target[] = [await sqliteTarget()];
  if (PG_URL) targets.push(await postgresTarget(PG_URL));
  for (const target of targets) {
    try {
      await run(target);
    } finally {
      await target.dispose();
    }
  }
}

await main();
