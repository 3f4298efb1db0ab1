// A scan's life beyond the happy path, on both app databases: cancelled while running, its source dropped while it
// runs, taken over from an instance whose heartbeat stopped, given up after repeated takeovers, and (PostgreSQL) two
// instances sharing the queue so that each scan runs once.
import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import pg from 'pg';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createPgSource, type PgSource } from '../../connectors/sources.js';
import { auditOf, catalog, createScannable, getScan, scanNow, startScan, waitFor } from './helpers.js';

/** 40 small tables, then 10 views that each take 0.2 s to read, then 20 that each take 1 s (names sort in that order). */
async function slowSource(src: PgSource): Promise<void> {
  const ddl: string[] = [];
  for (let i = 1; i <= 40; i++)
    ddl.push(
      `CREATE TABLE t${String(i).padStart(2, '0')} (id integer PRIMARY KEY, email text); INSERT INTO t${String(i).padStart(2, '0')} VALUES (1, 'a@example.com');`,
    );
  for (let i = 1; i <= 30; i++)
    ddl.push(
      `CREATE VIEW zz_slow_${String(i).padStart(2, '0')} AS SELECT pg_sleep(${i <= 10 ? 0.2 : 1})::text AS pause, 'x'::text AS v;`,
    );
  await src.client.query(ddl.join('\n'));
  await src.client.query('ANALYZE');
}

describeEachDatabase('scan lifecycle', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
  });
  beforeEach(async () => {
    token = await adminToken(t.app);
    for (const ds of json<{ items: Array<{ id: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items) {
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${ds.id}`, headers: bearer(token) });
    }
  });
  after(async () => t.close());

  const connectionOf = (src: PgSource) => ({
    kind: 'postgresql',
    host: src.server.host,
    port: src.server.port,
    user: src.server.user,
    database: src.database,
    ...(src.server.password ? { password: src.server.password } : {}),
  });

  it('a running scan is cancelled within seconds, keeping the batches it wrote and removing nothing', async () => {
    const src = await createPgSource();
    try {
      await slowSource(src);
      const id = await createScannable(t.app, token, connectionOf(src));
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      await waitFor(
        'the first batch',
        () => getScan(t.app, token, scan.id),
        (s) => s.progress.tables_done >= 50,
      );
      const cancelling = json<{ status: string; phase: string }>(
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/scans/${scan.id}/cancel`,
          headers: bearer(token),
          payload: {},
        }),
      );
      assert.deepEqual([cancelling.status, cancelling.phase], ['running', 'cancelling']);
      await running;
      const ended = await getScan(t.app, token, scan.id);
      assert.equal(ended.status, 'cancelled');
      assert.equal(ended.progress.tables_done, 50, 'stopped in the second batch, which was not written');
      assert.equal(ended.progress.tables_total, 70);
      const fields = await catalog(t.database, id);
      assert.equal(fields.size, 100, 'the 40 tables and 10 views of the first batch, whole');
      assert.equal((await auditOf(t.database, 'scan.cancel_requested', scan.id)).length, 1);
      const cancelled = await auditOf(t.database, 'scan.cancelled', scan.id);
      assert.equal(cancelled.length, 1);
      assert.equal(cancelled[0]!.details.new, 100);
      assert.equal((await auditOf(t.database, 'field.removed')).filter((r) => r.details.scan_id === scan.id).length, 0);
    } finally {
      await src.dispose();
    }
  });

  it('a source that goes away mid-scan fails the scan with the cause, and the catalog holds whole batches only', async () => {
    const src = await createPgSource();
    try {
      await slowSource(src);
      const id = await createScannable(t.app, token, connectionOf(src));
      const scan = await startScan(t.app, token, id);
      const running = t.app.services.scanWorker.drain();
      await waitFor(
        'the first batch',
        () => getScan(t.app, token, scan.id),
        (s) => s.progress.tables_done >= 50,
      );
      await src.client.end();
      const admin = new pg.Client({
        host: src.server.host,
        port: src.server.port,
        user: src.server.user,
        password: src.server.password,
        database: 'postgres',
      });
      await admin.connect();
      await admin.query(`DROP DATABASE ${src.database} WITH (FORCE)`);
      await admin.end();
      await running;
      const ended = await getScan(t.app, token, scan.id);
      assert.equal(ended.status, 'failed');
      assert.match(ended.error ?? '', /^(unreachable|unknown_database): /);
      assert.equal(ended.progress.tables_done, 50);
      assert.equal((await catalog(t.database, id)).size, 100, 'the first batch, whole; nothing removed');
      const failed = await auditOf(t.database, 'scan.failed', scan.id);
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.details.error, ended.error);
    } finally {
      await src.dispose();
    }
  });

  it('a scan whose instance stopped heart-beating is taken over; after repeated takeovers it fails with a clear error', async () => {
    const src = await createPgSource();
    try {
      await src.client.query(
        `CREATE TABLE a (id integer PRIMARY KEY, email text); CREATE TABLE b (id integer PRIMARY KEY, phone text)`,
      );
      const id = await createScannable(t.app, token, connectionOf(src));
      const scan = await startScan(t.app, token, id);
      const stale = new Date(t.clock.now().getTime() - 2 * 60_000).toISOString();
      // As a dead instance would leave it: running, claimed, its last heartbeat two minutes old.
      await t.database.db
        .updateTable('scans')
        .set({
          status: 'running',
          phase: 'sampling',
          claimed_by: 'dead-instance',
          heartbeat_at: stale,
          attempts: 1,
          started_at: stale,
        })
        .where('id', '=', scan.id)
        .execute();
      await t.app.services.scanWorker.drain();
      const taken = await getScan(t.app, token, scan.id);
      assert.equal(taken.status, 'succeeded', taken.error ?? '');
      assert.equal(taken.started_at, stale, 'the same scan, resumed');
      assert.deepEqual(taken.counts, { new: 4, changed: 0, removed: 0, unchanged: 0, classified: 4 });
      assert.equal((await auditOf(t.database, 'scan.resumed', scan.id)).length, 1);

      // A fresh heartbeat is not taken over.
      const second = await startScan(t.app, token, id);
      await t.database.db
        .updateTable('scans')
        .set({ status: 'running', claimed_by: 'live-instance', heartbeat_at: t.clock.now().toISOString(), attempts: 1 })
        .where('id', '=', second.id)
        .execute();
      await t.app.services.scanWorker.drain();
      assert.equal((await getScan(t.app, token, second.id)).status, 'running');
      // Its third instance dies too: the next claim gives up.
      await t.database.db
        .updateTable('scans')
        .set({ heartbeat_at: stale, attempts: 3 })
        .where('id', '=', second.id)
        .execute();
      await t.app.services.scanWorker.drain();
      const given = await getScan(t.app, token, second.id);
      assert.equal(given.status, 'failed');
      assert.match(given.error ?? '', /^interrupted: /);
    } finally {
      await src.dispose();
    }
  });

  if (kind === 'postgres') {
    it('two instances share the scans: each scan runs on one of them, once', async () => {
      const other = await buildTestApp(kind, { testDatabase: t.testDatabase });
      const src = await createPgSource();
      try {
        await src.client.query(
          `CREATE TABLE a (id integer PRIMARY KEY, email text); CREATE TABLE b (id integer PRIMARY KEY, phone text)`,
        );
        const ids = [
          await createScannable(t.app, token, connectionOf(src)),
          await createScannable(t.app, token, connectionOf(src)),
        ];
        const scans = [await startScan(t.app, token, ids[0]!), await startScan(t.app, token, ids[1]!)];
        await Promise.all([
          t.app.services.scanWorker.drain(),
          other.app.services.scanWorker.drain(),
          t.app.services.scanWorker.drain(),
          other.app.services.scanWorker.drain(),
        ]);
        for (const scan of scans) {
          const ended = await getScan(t.app, token, scan.id);
          assert.equal(ended.status, 'succeeded', ended.error ?? '');
          assert.equal((await auditOf(t.database, 'scan.started', scan.id)).length, 1, 'started once');
          assert.equal((await auditOf(t.database, 'scan.resumed', scan.id)).length, 0);
          assert.equal((await auditOf(t.database, 'scan.finished', scan.id)).length, 1, 'finished once');
        }
        for (const id of ids) assert.equal((await catalog(t.database, id)).size, 4);
        // A scan asked for on one instance is visible to the other.
        const again = await scanNow(other.app, await adminToken(other.app), ids[0]!);
        assert.deepEqual(again.counts, { new: 0, changed: 0, removed: 0, unchanged: 4, classified: 0 });
      } finally {
        await src.dispose();
        await other.close();
      }
    });
  }
});
