// Issue 30 items 3, 4, 8 and issue 31 ("scans name tables not sampled and why"), on both app databases: scanned
// metadata is bounded like imported metadata (names over 128 characters or with control or bidi characters skipped,
// comments and types cut) and the scan says what it skipped and cut; a 5,000-character table name fails nothing (it
// failed every scan on a PostgreSQL app database: "index row requires 15072 bytes"); a table that cannot be sampled is
// named with the reason; a scan taken over resumes by table identity.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, beforeEach, it } from 'node:test';
import BetterSqlite from 'better-sqlite3';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createPgSource, type PgSource } from '../../connectors/sources.js';
import { ScanWorker } from '../../../src/modules/scans/scan-worker.js';
import type { FieldsForScans } from '../../../src/modules/scans/scan-runner.js';
import { catalog, createScannable, getScan, scanNow, sqliteScanDir, startScan } from './helpers.js';

interface Note {
  kind: string;
  table: string;
  column: string | null;
  reason: string;
}
interface Notes {
  tables_not_sampled: number;
  tables_not_stored: number;
  tables_skipped: number;
  columns_skipped: number;
  metadata_cut: number;
  items: Note[];
}

const BIDI = '\u202e';

describeEachDatabase('scanned metadata bounded, notes, resume by identity', (kind) => {
  let t: TestApp;
  let token: string;
  let dir: string;

  before(async () => {
    dir = sqliteScanDir();
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_SQLITE_DIR: dir } });
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

  const pgConnection = (src: PgSource) => ({
    kind: 'postgresql',
    host: src.server.host,
    port: src.server.port,
    user: src.server.user,
    database: src.database,
    ...(src.server.password ? { password: src.server.password } : {}),
  });

  it('SQLite: a 5,000-character table name, a 1,000,000-character column name, control and bidi characters are skipped, a long type is cut, and the scan says so', async () => {
    const file = path.join(dir, `bounds-${kind}.db`);
    const db = new BetterSqlite(file);
    const longTable = 'T'.repeat(5000);
    const hugeColumn = 'c'.repeat(1_000_000);
    const longType = `VARCHAR${'X'.repeat(300)}`;
    db.exec(`
      CREATE TABLE "${longTable}" (email TEXT);
      CREATE TABLE "evil${BIDI}txt" (email TEXT);
      CREATE TABLE "bell\u0007" (email TEXT);
      CREATE TABLE people (email TEXT, "${hugeColumn}" TEXT, "tab\tname" TEXT, "rtl${BIDI}col" TEXT, notes ${longType});
      INSERT INTO people (email, notes) VALUES ('ann@example.com', 'x');
      INSERT INTO "${longTable}" VALUES ('bob@example.com');
    `);
    db.close();
    const id = await createScannable(t.app, token, { kind: 'sqlite', database: path.basename(file) });
    const scan = await scanNow(t.app, token, id);
    assert.equal(scan.status, 'succeeded', scan.error ?? '');

    const fields = await catalog(t.database, id);
    assert.deepEqual([...fields.keys()].sort(), ['people.email', 'people.notes']);
    assert.equal(fields.get('people.notes')!.data_type!.length, 128, 'the declared type is cut to 128 characters');
    assert.deepEqual(scan.progress, { tables_done: 1, tables_total: 1, fields_done: 2, fields_total: 2 });

    const notes = (scan as unknown as { notes: Notes }).notes;
    assert.equal(notes.tables_skipped, 3);
    assert.equal(notes.columns_skipped, 3);
    assert.equal(notes.metadata_cut, 1);
    assert.equal(notes.tables_not_sampled, 0);
    const skippedTables = notes.items.filter((n) => n.kind === 'table_skipped');
    assert.deepEqual(
      skippedTables.map((n) => n.table).sort(),
      ['bell\\u{7}', 'evil\\u{202E}txt', `${'T'.repeat(80)}… (5000 characters)`].sort(),
    );
    assert.match(skippedTables.find((n) => n.table.startsWith('T'))!.reason, /5000 characters \(at most 128/);
    assert.ok(
      notes.items.some(
        (n) =>
          n.kind === 'column_skipped' && n.table === 'people' && n.column === `${'c'.repeat(80)}… (1000000 characters)`,
      ),
    );
    assert.ok(notes.items.some((n) => n.kind === 'data_type_cut' && n.column === 'notes'));
    // Nothing unbounded or unsafe is stored or answered.
    const body = JSON.stringify(scan);
    assert.equal(body.includes(BIDI), false);
    assert.equal(body.includes('\u0007'), false);
    assert.ok(body.length < 5000, `the scan answer stays small (${body.length} characters)`);
    const stored = await t.database.db.selectFrom('fields').select(['table_name', 'field_name']).execute();
    assert.ok(stored.every((f) => f.table_name.length <= 128 && f.field_name.length <= 128));
  });

  it('PostgreSQL source: a 4 MB column comment is cut to 4,000 characters in the query, a bidi table name is skipped, a table that cannot be sampled is named with why', async () => {
    const src = await createPgSource();
    try {
      await src.client.query(`
        CREATE TABLE clients (email text, phone text);
        INSERT INTO clients VALUES ('ann@example.com', '+49 30 1234567');
        COMMENT ON COLUMN clients.email IS '${'m'.repeat(4 * 1024 * 1024)}';
        COMMENT ON TABLE clients IS 'customers';
        CREATE TABLE "pay${BIDI}roll" (iban text);
        CREATE VIEW broken AS SELECT (1 / (SELECT count(*) FROM clients WHERE false))::text AS ratio;
      `);
      const id = await createScannable(t.app, token, pgConnection(src));
      const scan = await scanNow(t.app, token, id);
      assert.equal(scan.status, 'succeeded', scan.error ?? '');
      const fields = await catalog(t.database, id);
      assert.deepEqual([...fields.keys()].sort(), [
        'public.broken.ratio',
        'public.clients.email',
        'public.clients.phone',
      ]);
      assert.equal(fields.get('public.clients.email')!.comment, 'm'.repeat(4000));

      const notes = (scan as unknown as { notes: Notes }).notes;
      assert.equal(notes.tables_skipped, 1);
      assert.equal(notes.metadata_cut, 1);
      assert.ok(notes.items.some((n) => n.kind === 'table_skipped' && n.table === 'public.pay\\u{202E}roll'));
      assert.ok(
        notes.items.some(
          (n) =>
            n.kind === 'comment_cut' &&
            n.table === 'public.clients' &&
            n.column === 'email' &&
            /cut to 4000 characters/.test(n.reason),
        ),
      );
      // Issue 31: the table that could not be sampled is named, with why.
      assert.equal(notes.tables_not_sampled, 1);
      const notSampled = notes.items.filter((n) => n.kind === 'table_not_sampled');
      assert.equal(notSampled.length, 1);
      assert.equal(notSampled[0]!.table, 'public.broken');
      assert.match(notSampled[0]!.reason, /^\w+: .*sampling public\.broken/);
      // The list of the data source's scans shows the same.
      const list = json<{ items: Array<{ id: string; notes: Notes }> }>(
        await t.app.inject({ method: 'GET', url: `/api/v1/datasources/${id}/scans`, headers: bearer(token) }),
      );
      assert.equal(list.items[0]!.notes.tables_not_sampled, 1);
      // GET /fields answers the bounded comment, not 4 MB.
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${id}`,
        headers: bearer(token),
      });
      assert.ok(res.body.length < 100_000, `GET /fields answered ${res.body.length} bytes`);
    } finally {
      await src.dispose();
    }
  });

  it('a scan taken over resumes by table identity: a table that appeared meanwhile is scanned, one dropped is removed, progress stays within its totals', async () => {
    // 51 tables: the first batch (50) is written, then the instance hangs in the second and is taken for dead.
    const file = path.join(dir, `resume-${kind}.db`);
    const db = new BetterSqlite(file);
    for (let i = 1; i <= 50; i++)
      db.exec(
        `CREATE TABLE b${String(i).padStart(2, '0')} (email TEXT); INSERT INTO b${String(i).padStart(2, '0')} VALUES ('p${i}@example.com');`,
      );
    db.exec(`CREATE TABLE z_last (phone TEXT); INSERT INTO z_last VALUES ('+49 30 1234567');`);
    db.close();
    const id = await createScannable(t.app, token, { kind: 'sqlite', database: path.basename(file) });
    const services = t.app.services;
    let hung!: () => void;
    const reachedSecondBatch = new Promise<void>((resolve) => (hung = resolve));
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const fields: FieldsForScans = {
      scanBaseline: (ds) => services.fieldScanWriter.scanBaseline(ds),
      prepareScanFields: async (cols) => {
        if (cols.some((c) => c.table_name === 'z_last')) {
          hung();
          await woken;
        }
        return services.fieldScanWriter.prepareScanFields(cols);
      },
      removeScannedFields: (trx, ds, ids) => services.fieldScanWriter.removeScannedFields(trx, ds, ids),
      applyScan: (trx, ds, prepared, scanId) => services.fieldScanWriter.applyScan(trx, ds, prepared, scanId),
    };
    const dying = new ScanWorker({
      database: t.database,
      clock: t.clock,
      log: t.app.log,
      audit: services.audit,
      fields,
      datasources: services.datasources,
      scans: services.scans,
      options: { connector: services.datasources.connectorOptions() },
    });
    const scan = await startScan(t.app, token, id);
    const firstRun = dying.drain();
    await reachedSecondBatch;
    assert.equal((await getScan(t.app, token, scan.id)).progress.tables_done, 50, 'the first batch was written');
    // Meanwhile a table appears that sorts before the written ones, and a written one is dropped.
    const change = new BetterSqlite(file);
    change.exec(`CREATE TABLE a_new (ssn TEXT); INSERT INTO a_new VALUES ('078-05-1120'); DROP TABLE b01;`);
    change.close();
    // The instance is taken for dead: its heartbeat is two minutes old.
    const stale = new Date(t.clock.now().getTime() - 2 * 60_000).toISOString();
    await t.database.db
      .updateTable('scans')
      .set({ claimed_by: 'dead-instance', heartbeat_at: stale })
      .where('id', '=', scan.id)
      .execute();
    await services.scanWorker.drain();
    wake();
    await firstRun;

    const ended = await getScan(t.app, token, scan.id);
    assert.equal(ended.status, 'succeeded', ended.error ?? '');
    const fieldsNow = await catalog(t.database, id);
    assert.ok(fieldsNow.has('a_new.ssn'), 'the table that appeared meanwhile is scanned');
    assert.ok(fieldsNow.has('z_last.phone'));
    assert.equal(fieldsNow.has('b01.email'), false, 'the dropped table is removed');
    assert.equal(fieldsNow.size, 51);
    assert.deepEqual(ended.progress, { tables_done: 51, tables_total: 51, fields_done: 51, fields_total: 51 });
    assert.equal(ended.counts.new, 52, '50 in the first run, a_new and z_last after the takeover');
    assert.equal(ended.counts.removed, 1);
    // A finished scan forgets its written tables.
    assert.equal(
      (await t.database.db.selectFrom('scan_tables').select('table_name').where('scan_id', '=', scan.id).execute())
        .length,
      0,
    );
  });

  it('a table whose fields the app database refuses is noted as not stored; the rest of its batch is written and the scan succeeds', async () => {
    const file = path.join(dir, `refused-${kind}.db`);
    const db = new BetterSqlite(file);
    db.exec(`CREATE TABLE alpha (email TEXT); CREATE TABLE bad (phone TEXT); CREATE TABLE gamma (city TEXT);`);
    db.close();
    const id = await createScannable(t.app, token, { kind: 'sqlite', database: path.basename(file) });
    const services = t.app.services;
    // The app database refusing one table's rows as it would a value it cannot hold (PostgreSQL program limit 54000,
    // e.g. "index row requires 15072 bytes"): only that table may be lost, not its batch.
    const fields: FieldsForScans = {
      scanBaseline: (ds) => services.fieldScanWriter.scanBaseline(ds),
      prepareScanFields: (cols) => services.fieldScanWriter.prepareScanFields(cols),
      removeScannedFields: (trx, ds, ids) => services.fieldScanWriter.removeScannedFields(trx, ds, ids),
      applyScan: async (trx, ds, prepared, scanId) => {
        if (prepared.rows.some((r) => r.table_name === 'bad'))
          throw Object.assign(new Error('index row requires 15072 bytes'), { code: '54000' });
        return services.fieldScanWriter.applyScan(trx, ds, prepared, scanId);
      },
    };
    const worker = new ScanWorker({
      database: t.database,
      clock: t.clock,
      log: t.app.log,
      audit: services.audit,
      fields,
      datasources: services.datasources,
      scans: services.scans,
      options: { connector: services.datasources.connectorOptions() },
    });
    const scan = await startScan(t.app, token, id);
    await worker.drain();
    const ended = await getScan(t.app, token, scan.id);
    assert.equal(ended.status, 'succeeded', ended.error ?? '');
    assert.deepEqual([...(await catalog(t.database, id)).keys()].sort(), ['alpha.email', 'gamma.city']);
    const notes = (ended as unknown as { notes: Notes }).notes;
    assert.equal(notes.tables_not_stored, 1);
    assert.deepEqual(
      notes.items.filter((n) => n.kind === 'table_not_stored').map((n) => [n.table, n.reason]),
      [['bad', "the catalog's database refused its fields (54000)"]],
    );
    assert.deepEqual(ended.progress, { tables_done: 3, tables_total: 3, fields_done: 3, fields_total: 3 });
    assert.equal(ended.counts.new, 2);
  });
});
