// Audit list under its filters: p50 of GET /api/v1/audit-logs?limit=100 (through app.inject: token check, validation,
// query with the targets' names, serialization) for each filter on a log of BENCH_AUDIT_ENTRIES entries (default
// 200,000) written through the real append path: field decisions, logins, scans and user/data-source changes by 4
// actors, on 2,000 fields. SQLite always; PostgreSQL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set (a database
// of its own, dropped after). Run: npx tsx bench/audit-list.ts
import os from 'node:os';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import type { Actor, AuditEvent } from '../src/modules/audit/audit.service.js';
import { postgresTarget, sqliteTarget, type Target } from './support/targets.js';

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const PASSWORD = 'bench-passphrase-of-the-boss-0001';
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** The action of the i-th entry: 70 % confirmations, 10 % deferrals, 10 % logins, 5 % scans, 5 % user/data-source changes. */
function actionOf(i: number): { action: string; type: string } {
  const r = i % 20;
  if (r < 14) return { action: 'field.confirmed', type: 'field' };
  if (r < 16) return { action: 'field.deferred', type: 'field' };
  if (r < 18) return { action: 'auth.login', type: 'user' };
  if (r === 18) return { action: 'scan.finished', type: 'scan' };
  return i % 40 === 19
    ? { action: 'user.updated', type: 'user' }
    : { action: 'datasource.updated', type: 'datasource' };
}

async function run(target: Target): Promise<void> {
  const database = target.open();
  const config = loadConfig({ FIELDLENS_ADMIN_PASSWORD: PASSWORD, FIELDLENS_SAMPLE_DATA: 'off', LOG_LEVEL: 'warn' });
  const app = await buildApp({
    config: { ...config, database: target.config },
    database,
    clock: systemClock,
    logStream: pino.destination('/dev/null'),
  });
  await app.ready();
  await app.services.bootstrap();
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
    const source = (await inject('POST', '/api/v1/datasources', { name: 'Pagila', type: 'postgresql' }, token))
      .id as string;
    const fields = Array.from({ length: 2000 }, (_, i) => ({
      table_name: `public.table_${i % 50}`,
      field_name: `column_${i}`,
      classification_chain_path: 'Technical/Record ID',
    }));
    const fieldIds = (await inject('POST', '/api/v1/fields/import', { datasource_id: source, fields }, token))
      .field_ids as string[];
    const actors: Actor[] = [];
    for (let u = 0; u < 4; u++) {
      const body = {
        username: `reviewer-${u}`,
        password: `a long bench passphrase ${u}`,
        email: `r${u}@example.com`,
        roles: ['operator'],
      };
      const id = (await inject('POST', '/api/v1/users', body, token)).id as string;
      actors.push({ id, username: body.username, requestId: null });
    }
    const have = Number((await database.db.selectFrom('audit_head').select('seq').executeTakeFirstOrThrow()).seq);
    let started = performance.now();
    for (let n = have; n < ENTRIES; n += 5000) {
      const size = Math.min(5000, ENTRIES - n);
      // One actor per transaction, as a request has; the actor changes every 5000 entries.
      const actor = actors[Math.floor(n / 5000) % actors.length] as Actor;
      const events: AuditEvent[] = Array.from({ length: size }, (_, k) => {
        const i = n + k;
        const { action, type } = actionOf(i);
        const targetId =
          type === 'field'
            ? (fieldIds[i % fieldIds.length] as string)
            : type === 'user'
              ? actor.id
              : type === 'datasource'
                ? source
                : `scan-${i}`;
        return {
          action,
          targetType: type,
          targetId,
          details: { before: { review_status: 'unreviewed' }, after: { review_status: 'confirmed' } },
        };
      });
      await database.db.transaction().execute((trx) => app.services.audit.record(trx, actor, events));
    }
    console.log(
      `[${target.kind}] ${ENTRIES} entries appended in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const queries: Array<[string, string]> = [
      ['no filter', ''],
      ['action=field.confirmed (70 %)', 'action=field.confirmed'],
      ['action=field.* (80 %)', 'action=field.*'],
      ['action=user.* (2.5 %)', 'action=user.*'],
      ['action=scan.* (5 %)', 'action=scan.*'],
      ['actor=reviewer-3 (1/4)', 'actor=reviewer-3'],
      [`actor_id (1/4)`, `actor_id=${actors[3]?.id}`],
      ['target=table_7.column_1 (field name, 11 fields)', 'target=table_7.column_1'],
      ['target=reviewer-3 (user name)', 'target=reviewer-3'],
      ['target_id (one field, 1/2000)', `target_id=${fieldIds[7]}`],
      ['action=field.* & actor=reviewer-3', 'action=field.*&actor=reviewer-3'],
    ];
    for (const [label, query] of queries) {
      const url = `/api/v1/audit-logs?limit=100${query ? `&${query}` : ''}`;
      let items = 0;
      for (let w = 0; w < 2; w++) items = ((await inject('GET', url, undefined, token)).items as unknown[]).length;
      const times: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        started = performance.now();
        await inject('GET', url, undefined, token);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(
        `[${target.kind}] ${label}: p50 ${times[Math.floor(times.length / 2)]?.toFixed(1)} ms (${items} items)`,
      );
    }
  } finally {
    await app.close();
    await database.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}`,
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
