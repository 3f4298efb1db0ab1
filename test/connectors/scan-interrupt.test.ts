// A scan of a SQLite source with a view that never ends, through the API, on both app databases (issue 30 items 1, 7,
// 12): the service keeps answering, cancel and shutdown end the scan within seconds, the statement deadline skips the
// view; the service's own database is refused at create and fails a scan.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { ConfigError, loadConfig } from '../../src/config.js';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../helpers/app.js';
import { createTestDatabase, describeEachDatabase } from '../helpers/databases.js';
import {
  createScannable,
  getScan,
  sqliteScanDir,
  startScan,
  waitFor,
  type ScanBody,
} from '../modules/scans/helpers.js';
import { createMysqlSource, createPgSource, MYSQL } from './sources.js';

const ENDLESS_VIEW =
  'CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0';

function stuckSource(dir: string): void {
  const db = new Database(path.join(dir, 'stuck.db'));
  // `a_people` sorts first: sampled before the view, so the scan reaches the view in its first batch.
  db.exec(
    `CREATE TABLE a_people (id INTEGER PRIMARY KEY, email TEXT); INSERT INTO a_people VALUES (1, 'a@example.com'); ${ENDLESS_VIEW}`,
  );
  db.close();
}

/** Waits until the scan samples (the view is being read: the reader is busy), then a little longer. */
async function untilStuck(t: TestApp, token: string, scan: ScanBody): Promise<void> {
  await waitFor(
    'the scan sampling',
    () => getScan(t.app, token, scan.id),
    (s) => s.phase === 'sampling',
  );
  await new Promise((r) => setTimeout(r, 500));
}

/** Slowest of `n` /healthz answers while the scan is stuck (ms). */
async function healthzWhileStuck(t: TestApp, n = 10): Promise<number> {
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const r = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(r.statusCode, 200);
    worst = Math.max(worst, performance.now() - started);
    await new Promise((res) => setTimeout(res, 50));
  }
  return worst;
}

describeEachDatabase('a SQLite source that never ends', (kind) => {
  let dir: string;
  before(() => {
    dir = sqliteScanDir();
    stuckSource(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const app = (timeoutMs: number): Promise<TestApp> =>
    buildTestApp(kind, {
      env: { FIELDLENS_SCAN_SQLITE_DIR: dir, FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS: String(timeoutMs) },
    });

  it('does not stop the service answering, and a cancel ends the scan within seconds', async (ctx) => {
    const t = await app(600_000);
    try {
      const token = await adminToken(t.app);
      const id = await createScannable(t.app, token, { kind: 'sqlite', database: 'stuck.db' });
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      await untilStuck(t, token, scan);
      const worst = await healthzWhileStuck(t);
      const started = Date.now();
      const cancel = await t.app.inject({
        method: 'POST',
        url: `/api/v1/scans/${scan.id}/cancel`,
        headers: bearer(token),
        payload: {},
      });
      assert.equal(cancel.statusCode, 200);
      await running;
      const took = Date.now() - started;
      const ended = await getScan(t.app, token, scan.id);
      assert.equal(ended.status, 'cancelled');
      assert.ok(took < 60_000, `cancel took ${took} ms (statement deadline 600 s)`);
      ctx.diagnostic(
        `${kind}: /healthz slowest ${worst.toFixed(1)} ms during the stuck read; cancel → cancelled in ${took} ms`,
      );
    } finally {
      await t.close();
    }
  });

  it('shutdown stops the stuck read and gives the scan back at once', async (ctx) => {
    const t = await app(600_000);
    let closed = false;
    try {
      const token = await adminToken(t.app);
      const id = await createScannable(t.app, token, { kind: 'sqlite', database: 'stuck.db' });
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      await untilStuck(t, token, scan);
      const started = Date.now();
      await t.app.services.scanWorker.stop();
      await running;
      const took = Date.now() - started;
      assert.ok(took < 30_000, `stop took ${took} ms`);
      const row = await t.database.db
        .selectFrom('scans')
        .select(['status', 'claimed_by'])
        .where('id', '=', scan.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'running', claimed_by: null }, 'released for another instance');
      const closing = Date.now();
      await t.close();
      closed = true;
      ctx.diagnostic(`${kind}: scan worker stop ${took} ms, app close ${Date.now() - closing} ms`);
    } finally {
      if (!closed) await t.close();
    }
  });

  it('the statement deadline skips the view: the scan succeeds with the view catalogued from its metadata', async () => {
    const t = await app(1500);
    try {
      const token = await adminToken(t.app);
      const id = await createScannable(t.app, token, { kind: 'sqlite', database: 'stuck.db' });
      const scan = await startScan(t.app, token, id);
      await t.app.services.scanWorker.drain();
      const ended = await getScan(t.app, token, scan.id);
      assert.equal(ended.status, 'succeeded', JSON.stringify(ended));
      assert.equal(ended.progress.fields_done, 3);
      const finished = await t.database.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'scan.finished')
        .where('target_id', '=', scan.id)
        .executeTakeFirstOrThrow();
      assert.equal((JSON.parse(finished.details) as { tables_not_sampled?: number }).tables_not_sampled, 1);
    } finally {
      await t.close();
    }
  });
});

describe("the service's own SQLite database inside the scan folder", () => {
  it('is refused at create and test-connection (422) and fails a scan', async () => {
    const own = await createTestDatabase('sqlite');
    assert.equal(own.config.kind, 'sqlite');
    const file = own.config.kind === 'sqlite' ? own.config.file : '';
    const t = await buildTestApp('sqlite', {
      testDatabase: own,
      env: { FIELDLENS_SCAN_SQLITE_DIR: path.dirname(file) },
    });
    try {
      const token = await adminToken(t.app);
      for (const database of [path.basename(file), `${path.basename(file)}-wal`, file]) {
        const r = await t.app.inject({
          method: 'POST',
          url: '/api/v1/datasources',
          headers: bearer(token),
          payload: { name: `own ${database.length}`, type: 'sqlite', connection: { kind: 'sqlite', database } },
        });
        assert.equal(r.statusCode, 422, database);
        assert.match(r.headers['content-type'] as string, /application\/problem\+json/);
        assert.match(json<{ detail: string }>(r).detail, /own database/);
      }
      // A connection stored before this rule (or the database moved into the folder later) fails its test and scans.
      const id = await createScannable(t.app, token, { kind: 'sqlite', database: 'not-yet.db' });
      await t.database.db
        .updateTable('datasources')
        .set({ connection: JSON.stringify({ kind: 'sqlite', database: path.basename(file) }) })
        .where('id', '=', id)
        .execute();
      const test = await t.app.inject({
        method: 'POST',
        url: `/api/v1/datasources/${id}/test-connection`,
        headers: bearer(token),
        payload: {},
      });
      assert.equal(test.statusCode, 422);
      assert.match(json<{ detail: string }>(test).detail, /own database/);
      const scan = await startScan(t.app, token, id);
      await t.app.services.scanWorker.drain();
      const ended = await getScan(t.app, token, scan.id);
      assert.equal(ended.status, 'failed');
      assert.match(ended.error ?? '', /own database/);
      const fields = await t.database.db.selectFrom('fields').select('id').where('datasource_id', '=', id).execute();
      assert.equal(fields.length, 0);
    } finally {
      await t.close();
      await own.dispose();
    }
  });
});

describeEachDatabase('a network source stuck in a slow query', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS: '600000' } });
  });
  after(async () => t.close());

  it('PostgreSQL: a cancel ends the scan and the query on the server (pg_cancel_backend)', async (ctx) => {
    const src = await createPgSource();
    try {
      await src.client.query(
        `CREATE TABLE a_people (id int PRIMARY KEY, email text); INSERT INTO a_people VALUES (1, 'a@example.com'); CREATE VIEW slow AS SELECT pg_sleep(300)::text AS pause`,
      );
      const token = await adminToken(t.app);
      const s = src.server;
      const id = await createScannable(t.app, token, {
        kind: 'postgresql',
        host: s.host,
        port: s.port,
        user: s.user,
        database: src.database,
        ...(s.password ? { password: s.password } : {}),
      });
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      const onServer = async (): Promise<boolean> =>
        ((
          await src.client.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = 'fieldlens-scan' AND state = 'active' AND query LIKE '%slow%'`,
            [src.database],
          )
        ).rowCount ?? 0) > 0;
      await waitFor('the slow query on the server', onServer, (v) => v);
      const started = Date.now();
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/scans/${scan.id}/cancel`,
        headers: bearer(token),
        payload: {},
      });
      await running;
      const took = Date.now() - started;
      assert.equal((await getScan(t.app, token, scan.id)).status, 'cancelled');
      assert.ok(took < 20_000, `cancel took ${took} ms`);
      assert.equal(await onServer(), false, 'the query no longer runs on the server');
      ctx.diagnostic(`${kind}: PostgreSQL pg_sleep(300) scan cancelled in ${took} ms`);
    } finally {
      await src.dispose();
    }
  });

  it('MariaDB: a cancel ends the scan and the query on the server (KILL QUERY)', async (ctx) => {
    const src = await createMysqlSource();
    const watcher = await mysql.createConnection({ ...MYSQL });
    try {
      await src.conn.query(
        `CREATE TABLE a_people (id int PRIMARY KEY, email text); INSERT INTO a_people VALUES (1, 'a@example.com'); CREATE VIEW slow AS SELECT SLEEP(300) AS pause`,
      );
      const token = await adminToken(t.app);
      const id = await createScannable(t.app, token, {
        kind: 'mysql',
        host: MYSQL.host,
        port: MYSQL.port,
        user: MYSQL.user,
        database: src.database,
      });
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      const onServer = async (): Promise<boolean> => {
        const [rows] = await watcher.query<mysql.RowDataPacket[]>(
          `SELECT 1 FROM information_schema.PROCESSLIST WHERE DB = ? AND COMMAND = 'Query' AND INFO LIKE '%slow%' AND ID <> CONNECTION_ID()`,
          [src.database],
        );
        return rows.length > 0;
      };
      await waitFor('the slow query on the server', onServer, (v) => v);
      const started = Date.now();
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/scans/${scan.id}/cancel`,
        headers: bearer(token),
        payload: {},
      });
      await running;
      const took = Date.now() - started;
      assert.equal((await getScan(t.app, token, scan.id)).status, 'cancelled');
      assert.ok(took < 20_000, `cancel took ${took} ms`);
      await waitFor('the query gone from the server', onServer, (v) => !v, 5000);
      ctx.diagnostic(`${kind}: MariaDB SLEEP(300) scan cancelled in ${took} ms`);
    } finally {
      await watcher.end();
      await src.dispose();
    }
  });
});

describe('FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS', () => {
  it('defaults to 30 s and refuses a value that is not a whole number of milliseconds from 100', () => {
    assert.equal(loadConfig({}).scanStatementTimeoutMs, 30_000);
    assert.equal(loadConfig({ FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS: '2500' }).scanStatementTimeoutMs, 2500);
    for (const bad of ['abc', '-1', '50', '1.5']) {
      assert.throws(
        () => loadConfig({ FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS: bad }),
        (err: unknown) => err instanceof ConfigError && err.variable === 'FIELDLENS_SCAN_STATEMENT_TIMEOUT_MS',
        bad,
      );
    }
  });
});
