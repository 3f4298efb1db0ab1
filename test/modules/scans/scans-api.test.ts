// The scans API on both app databases, scanning SQLite source files: access per route, the one-active-scan rule,
// cancel, the list, a full scan of awkward identifiers and column kinds, incremental rescans, periodic scans, and a
// planted sample value that never reaches the app database or the log.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, it } from 'node:test';
import BetterSqlite from 'better-sqlite3';
import pg from 'pg';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import {
  auditOf,
  catalog,
  createScannable,
  getScan,
  scanNow,
  sqliteScanDir,
  startScan,
  type ScanBody,
} from './helpers.js';

const PLANTED = 'planted-secret-value-7f3a9c';

describeEachDatabase('scans API', (kind) => {
  let t: TestApp;
  let token: string;
  let dir: string;

  before(async () => {
    dir = sqliteScanDir();
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_SQLITE_DIR: dir } });
    token = await adminToken(t.app);
  });
  // The trial allows 3 data sources: each test starts with none.
  beforeEach(async () => {
    token = await adminToken(t.app);
    for (const ds of json<{ items: Array<{ id: string }> }>(await inject('GET', '/api/v1/datasources', token)).items) {
      await inject('DELETE', `/api/v1/datasources/${ds.id}`, token);
    }
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let fileCounter = 0;
  /** A fresh SQLite source file built by `ddl`, and a data source scanning it. */
  const sqliteSource = async (ddl: string): Promise<{ id: string; file: string }> => {
    fileCounter += 1;
    const file = path.join(dir, `source-${fileCounter}.db`);
    const db = new BetterSqlite(file);
    db.exec(ddl);
    db.close();
    return { id: await createScannable(t.app, token, { kind: 'sqlite', database: file }), file };
  };
  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, as: string | undefined, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      ...(as ? { headers: bearer(as) } : {}),
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  it('answers 401 without a token, 403 for a role without scan:run, 400 for a bad body or id, 404 for unknown ids', async () => {
    const { id } = await sqliteSource('create table t (a text)');
    const observer = await createUser(t.app, ['observer']);
    const operator = await createUser(t.app, ['operator']);
    const unknown = '00000000-0000-4000-8000-000000000000';

    for (const [method, url] of [
      ['POST', `/api/v1/datasources/${id}/scans`],
      ['GET', `/api/v1/datasources/${id}/scans`],
      ['GET', `/api/v1/scans/${unknown}`],
      ['POST', `/api/v1/scans/${unknown}/cancel`],
    ] as const) {
      const response = await inject(method, url, undefined, method === 'POST' ? {} : undefined);
      assert.equal(response.statusCode, 401, `${method} ${url}`);
      assert.equal(problem(response).code, 'unauthorized');
    }
    for (const as of [observer.token, operator.token]) {
      assert.equal(problem(await inject('POST', `/api/v1/datasources/${id}/scans`, as, {})).code, 'forbidden');
      assert.equal((await inject('POST', `/api/v1/scans/${unknown}/cancel`, as, {})).statusCode, 403);
    }
    const badBody = await inject('POST', `/api/v1/datasources/${id}/scans`, token, { sample_size: 5 });
    assert.equal(badBody.statusCode, 400);
    assert.equal(problem(badBody).code, 'validation_failed');
    assert.equal((await inject('POST', `/api/v1/datasources/not-a-uuid/scans`, token, {})).statusCode, 400);
    assert.equal((await inject('GET', `/api/v1/scans/not-a-uuid`, token)).statusCode, 400);
    assert.equal((await inject('POST', `/api/v1/scans/${unknown}/cancel`, token, { now: true })).statusCode, 400);
    assert.equal((await inject('GET', `/api/v1/datasources/${id}/scans?limit=0`, token)).statusCode, 400);

    assert.equal(problem(await inject('POST', `/api/v1/datasources/${unknown}/scans`, token, {})).code, 'not_found');
    assert.equal(problem(await inject('GET', `/api/v1/datasources/${unknown}/scans`, token)).code, 'not_found');
    assert.equal(problem(await inject('GET', `/api/v1/scans/${unknown}`, token)).code, 'not_found');
    assert.equal(problem(await inject('POST', `/api/v1/scans/${unknown}/cancel`, token, {})).code, 'not_found');

    // Every role reads scans; nothing above queued one.
    const list = await inject('GET', `/api/v1/datasources/${id}/scans`, observer.token);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(json(list), { items: [], next_cursor: null });
    // No body at all is the same as {}.
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/v1/datasources/${id}/scans`,
      headers: bearer(token),
    });
    assert.equal(started.statusCode, 202);
    const scan = json<ScanBody>(started);
    assert.equal((await inject('GET', `/api/v1/scans/${scan.id}`, observer.token)).statusCode, 200);
    await t.app.services.scanWorker.drain();
  });

  it('queues one scan per data source (409 for a second, by the database), refuses sources without a connection, cancels a queued scan', async () => {
    const { id } = await sqliteSource('create table t (a text)');
    const first = await startScan(t.app, token, id);
    assert.deepEqual(
      {
        status: first.status,
        phase: first.phase,
        progress: first.progress,
        counts: first.counts,
        error: first.error,
        started_at: first.started_at,
        finished_at: first.finished_at,
      },
      {
        status: 'queued',
        phase: 'queued',
        progress: { tables_done: 0, tables_total: 0, fields_done: 0, fields_total: 0 },
        counts: { new: 0, changed: 0, removed: 0, unchanged: 0, classified: 0 },
        error: null,
        started_at: null,
        finished_at: null,
      },
    );
    const me = json<{ id: string }>(await inject('GET', '/api/v1/auth/me', token));
    assert.equal(first.requested_by, me.id);
    const second = await inject('POST', `/api/v1/datasources/${id}/scans`, token, {});
    assert.equal(second.statusCode, 409);
    assert.equal(problem(second).code, 'conflict');
    // The rule is the database's: a direct second insert fails too.
    await assert.rejects(
      t.database.db
        .insertInto('scans')
        .values({
          id: '11111111-1111-4111-8111-111111111111',
          datasource_id: id,
          status: 'running',
          phase: 'sampling',
          created_at: new Date().toISOString(),
        })
        .execute(),
    );

    const cancelled = json<ScanBody>(await inject('POST', `/api/v1/scans/${first.id}/cancel`, token, {}));
    assert.equal(cancelled.status, 'cancelled');
    assert.ok(cancelled.finished_at);
    assert.equal((await auditOf(t.database, 'scan.cancelled', first.id)).length, 1);
    const again = await inject('POST', `/api/v1/scans/${first.id}/cancel`, token, {});
    assert.equal(again.statusCode, 409, 'a finished scan cannot be cancelled');
    await t.app.services.scanWorker.drain();
    assert.equal((await getScan(t.app, token, first.id)).status, 'cancelled', 'a cancelled scan is never run');

    const plain = json<{ id: string }>(
      await inject('POST', '/api/v1/datasources', token, { name: `plain-${kind}`, type: 'postgresql' }),
    );
    const refused = await inject('POST', `/api/v1/datasources/${plain.id}/scans`, token, {});
    assert.equal(refused.statusCode, 409);
    assert.match(problem(refused).detail, /no connection/);
  });

  it("lists a data source's scans newest first, a page at a time", async () => {
    const { id } = await sqliteSource('create table t (a text)');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      ids.push((await scanNow(t.app, token, id)).id);
    }
    const page1 = json<{ items: ScanBody[]; next_cursor: string | null }>(
      await inject('GET', `/api/v1/datasources/${id}/scans?limit=2`, token),
    );
    assert.deepEqual(
      page1.items.map((s) => s.id),
      [ids[2], ids[1]],
    );
    assert.ok(page1.next_cursor);
    const page2 = json<{ items: ScanBody[]; next_cursor: string | null }>(
      await inject('GET', `/api/v1/datasources/${id}/scans?limit=2&cursor=${page1.next_cursor}`, token),
    );
    assert.deepEqual(
      page2.items.map((s) => s.id),
      [ids[0]],
    );
    assert.equal(page2.next_cursor, null);
    assert.equal((await inject('GET', `/api/v1/datasources/${id}/scans?cursor=garbage`, token)).statusCode, 400);
  });

  it('scans awkward identifiers, views, empty, NULL-only, binary and huge columns, and never stores a sampled value', async () => {
    const huge = 'x'.repeat(200_000);
    const { id, file } = await sqliteSource(`
      create table "Customer Accounts" ("E-Mail Address" text, "MixedCase" text, "select" integer, "ünïcødé_名前" text, "quote""d" text);
      insert into "Customer Accounts" values ('anna@example.com', 'A', 1, 'Zoë', 'q'), ('ben@example.org', 'B', 2, 'Jürgen', 'r'), ('${PLANTED}@example.com', 'C', 3, 'Åsa', 's');
      create table "order" (id integer primary key, null_only text, blob_col blob, big_text text);
      insert into "order" (id, null_only, blob_col, big_text) values (1, null, x'deadbeef', '${huge}'), (2, null, x'00', 'short');
      create table empty_table (id integer primary key, email text);
      create view "Active Customers" as select "E-Mail Address" as email from "Customer Accounts";
    `);
    const scan = await scanNow(t.app, token, id);
    assert.equal(scan.status, 'succeeded', scan.error ?? '');
    assert.equal(scan.phase, 'done');
    assert.deepEqual(scan.progress, { tables_done: 4, tables_total: 4, fields_done: 12, fields_total: 12 });
    assert.deepEqual(scan.counts, { new: 12, changed: 0, removed: 0, unchanged: 0, classified: 12 });
    assert.ok(scan.started_at && scan.finished_at);

    const fields = await catalog(t.database, id);
    assert.deepEqual([...fields.keys()].sort(), [
      'Active Customers.email',
      'Customer Accounts.E-Mail Address',
      'Customer Accounts.MixedCase',
      'Customer Accounts.quote"d',
      'Customer Accounts.select',
      'Customer Accounts.ünïcødé_名前',
      'empty_table.email',
      'empty_table.id',
      'order.big_text',
      'order.blob_col',
      'order.id',
      'order.null_only',
    ]);
    const email = fields.get('Customer Accounts.E-Mail Address')!;
    assert.equal(email.classification_source, 'classifier');
    assert.equal(email.review_status, 'unreviewed');
    assert.match(email.format_signature ?? '', /email/, 'the format of the samples is kept');
    assert.equal(fields.get('order.null_only')!.format_signature, null, 'a NULL-only column has no samples');
    assert.equal(fields.get('empty_table.email')!.format_signature, null);
    const emailField = json<{ classification_chain_path: string; level: string }>(
      await inject('GET', `/api/v1/fields/${email.id}`, token),
    );
    assert.match(emailField.classification_chain_path, /mail/i, 'classified from name and values');

    assert.equal((await auditOf(t.database, 'scan.started', scan.id)).length, 1);
    const finished = await auditOf(t.database, 'scan.finished', scan.id);
    assert.equal(finished.length, 1);
    assert.equal(finished[0]!.details.new, 12);

    // The planted value (and the huge text) reach no table of the app database and no log line.
    const dump = await dumpAppDatabase(t);
    assert.equal(dump.includes(PLANTED), false, 'the planted value is not in the app database');
    assert.equal(dump.includes('x'.repeat(300)), false, 'no sampled text is stored');
    assert.equal(t.logs.join('').includes(PLANTED), false, 'nor in the log');
    if (kind === 'sqlite')
      assert.equal(
        fs.readFileSync(t.testDatabase.config.kind === 'sqlite' ? t.testDatabase.config.file : '').includes(PLANTED),
        false,
        'nor anywhere in the SQLite file',
      );
    assert.ok(fs.existsSync(file));
  });

  it('rescans incrementally: new, changed, removed, unchanged; confirmed and locked keep their classification; removed fields are audited', async () => {
    const { id, file } = await sqliteSource(`
      create table people (id integer primary key, email text, phone text, note text, legacy text);
      insert into people values (1, 'a@example.com', '+1 555 0100', 'hello', 'x');
      create table old_table (id integer primary key, code text);
    `);
    const first = await scanNow(t.app, token, id);
    assert.deepEqual(first.counts, { new: 7, changed: 0, removed: 0, unchanged: 0, classified: 7 });
    const before = await catalog(t.database, id);

    // Unchanged rescan: nothing written.
    const unchanged = await scanNow(t.app, token, id);
    assert.deepEqual(unchanged.counts, { new: 0, changed: 0, removed: 0, unchanged: 7, classified: 0 });

    // A reviewer confirms email (to another tag) and locks phone's level.
    const tags = json<{ items: Array<{ id: number; chain_path: string }> }>(
      await inject('GET', '/api/v1/classification/tags', token),
    ).items;
    const other = tags.find((tag) => tag.chain_path === 'Technical/Record ID') ?? tags[0]!;
    assert.equal(
      (
        await inject('POST', `/api/v1/classify/fields/${before.get('people.email')!.id}/confirm`, token, {
          classification_tag_id: other.id,
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await inject('POST', `/api/v1/classify/fields/${before.get('people.phone')!.id}/confirm`, token, {
          lock_level: 'L5',
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (
        await inject('POST', `/api/v1/classify/fields/${before.get('people.note')!.id}/defer`, token, {
          reason: 'later',
        })
      ).statusCode,
      200,
    );

    // The label gap was measured against the classifier's label; the reviewer's label is measured again in the background.
    const gapOf = async (fieldId: string) =>
      (
        await t.database.db
          .selectFrom('fields')
          .select('predicted_label_gap')
          .where('id', '=', fieldId)
          .executeTakeFirstOrThrow()
      ).predicted_label_gap;
    const queued = async (fieldId: string) =>
      (await t.database.db.selectFrom('reclassify_queue').select('field_id').where('field_id', '=', fieldId).execute())
        .length === 1;
    assert.equal(await gapOf(before.get('people.email')!.id), null);
    await t.app.services.reclassifyWorker.drain();
    const emailGap = await gapOf(before.get('people.email')!.id);
    assert.ok(emailGap !== null && emailGap > 0, `the classifier does not read email as a record id (${emailGap})`);

    // The source changes: email and phone change format, note changes format, legacy and old_table go, a column and a table come.
    const db = new BetterSqlite(file);
    db.exec(`
      delete from people;
      insert into people values (1, '2024-01-02', '2024-01-03', '2024-01-04', 'x');
      alter table people drop column legacy;
      alter table people add column iban text;
      drop table old_table;
      create table new_table (id integer primary key, first_name text);
    `);
    db.close();
    const rescan = await scanNow(t.app, token, id);
    assert.equal(rescan.status, 'succeeded', rescan.error ?? '');
    assert.deepEqual(rescan.counts, { new: 3, changed: 3, removed: 3, unchanged: 1, classified: 4 });

    const after = await catalog(t.database, id);
    assert.deepEqual([...after.keys()].sort(), [
      'new_table.first_name',
      'new_table.id',
      'people.email',
      'people.iban',
      'people.id',
      'people.note',
      'people.phone',
    ]);
    const email = after.get('people.email')!;
    assert.equal(email.id, before.get('people.email')!.id, 'a field keeps its id');
    assert.deepEqual(
      [email.tag_id, email.review_status, email.locked],
      [other.id, 'confirmed', 1],
      'a confirmed field keeps its classification',
    );
    const phone = after.get('people.phone')!;
    assert.deepEqual(
      [phone.level, phone.locked, phone.review_status],
      ['L5', 1, 'confirmed'],
      'a locked field keeps its classification',
    );
    const note = after.get('people.note')!;
    assert.equal(note.review_status, 'unreviewed', 'a changed field nobody decided goes back to unreviewed');
    assert.equal(note.classification_source, 'classifier');
    assert.match(note.format_signature ?? '', /^date/);
    assert.equal(await gapOf(note.id), 0, 'a field the classifier labelled trails its answer by nothing');
    // The scan measured the gap against its own label for email, but kept the reviewer's: unknown until measured again.
    assert.equal(await gapOf(email.id), null);
    assert.ok(await queued(email.id));
    await t.app.services.reclassifyWorker.drain();
    assert.ok(((await gapOf(email.id)) ?? 0) > 0);
    assert.ok(!(await queued(email.id)));

    const removed = await auditOf(t.database, 'field.removed');
    const mine = removed.filter((r) => r.details.datasource_id === id);
    assert.deepEqual(mine.map((r) => `${String(r.details.table_name)}.${String(r.details.field_name)}`).sort(), [
      'old_table.code',
      'old_table.id',
      'people.legacy',
    ]);
    const legacy = mine.find((r) => r.details.field_name === 'legacy')!;
    assert.equal(legacy.target_id, before.get('people.legacy')!.id);
    assert.equal(legacy.details.level, before.get('people.legacy')!.level, 'audited with its last classification');
    assert.equal(typeof legacy.details.classification_chain_path, 'string');
    assert.equal(legacy.details.scan_id, rescan.id);
  });

  it('queues periodic scans when due, once, and never while one is active', async () => {
    const file = path.join(dir, 'periodic.db');
    new BetterSqlite(file).exec('create table t (a text)');
    const id = await createScannable(t.app, token, { kind: 'sqlite', database: file }, { scan_interval_hours: 2 });
    const scans = async () =>
      json<{ items: ScanBody[] }>(await inject('GET', `/api/v1/datasources/${id}/scans`, token)).items;

    const queued = await t.app.services.scans.queueDueScans();
    assert.equal(queued.length, 1, 'never scanned: due now');
    assert.deepEqual(await t.app.services.scans.queueDueScans(), [], 'one active at most');
    await t.app.services.scanWorker.drain();
    const [periodic] = await scans();
    assert.equal(periodic!.status, 'succeeded');
    assert.equal(periodic!.requested_by, null, 'started by the workers');

    t.clock.advance(60 * 60 * 1000);
    token = await adminToken(t.app); // the clock moved past the access token's lifetime
    await t.app.services.scanWorker.drain();
    assert.equal((await scans()).length, 1, 'not due after one hour of two');
    t.clock.advance(60 * 60 * 1000 + 1000);
    token = await adminToken(t.app);
    await t.app.services.scanWorker.drain();
    const all = await scans();
    assert.equal(all.length, 2, 'due again after two hours');
    assert.equal(all[0]!.status, 'succeeded');
  });

  it('refuses to start a scan while the license is not active', async () => {
    const { id } = await sqliteSource('create table t (a text)');
    t.clock.advance(40 * 24 * 3600 * 1000);
    token = await adminToken(t.app);
    const response = await inject('POST', `/api/v1/datasources/${id}/scans`, token, {});
    assert.equal(response.statusCode, 403);
    assert.equal(problem(response).code, 'license_inactive');
  });
});

/** Every row of every table of the app database as text. */
async function dumpAppDatabase(t: TestApp): Promise<string> {
  if (t.testDatabase.config.kind === 'sqlite') {
    const db = new BetterSqlite(t.testDatabase.config.file, { readonly: true });
    try {
      const tables = db.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{ name: string }>;
      return tables
        .map((tb) =>
          JSON.stringify(db.prepare(`select * from "${tb.name}"`).all(), (_k, v: unknown) =>
            v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
          ),
        )
        .join('\n');
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: t.testDatabase.config.url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = $1`,
      [t.testDatabase.schema],
    );
    const out: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`select * from "${t.testDatabase.schema}"."${table_name}"`);
      out.push(JSON.stringify(rows.rows, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v)));
    }
    return out.join('\n');
  } finally {
    await client.end();
  }
}
