// The queue's views in GET /fields on both databases: `changed=last_scan` and each field's `scan_change` after scans
// and rescans of SQLite source files (new, changed, re-classified, untouched), combined with the other filters and
// sorts; `include_sample=false` leaving out the built-in sample data; scores rounded to 3 decimals.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, it } from 'node:test';
import BetterSqlite from 'better-sqlite3';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { catalog, createScannable, scanNow, sqliteScanDir } from '../scans/helpers.js';
import { createDatasource, importOk } from './factories.js';

interface Item {
  id: string;
  datasource_id: string;
  table_name: string;
  field_name: string;
  review_status: string;
  outlier_score: number | null;
  classification_confidence: number | null;
  scan_change: 'new' | 'changed' | 'reclassified' | null;
}
interface ListBody {
  items: Item[];
  next_cursor: string | null;
}

describeEachDatabase('field list: queue views', (kind) => {
  let t: TestApp;
  let token: string;
  let dir: string;

  before(async () => {
    dir = sqliteScanDir();
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_SQLITE_DIR: dir } });
    // Scores are set by hand below; the metrics worker would overwrite them.
    await t.app.services.metricsWorker.stop();
    token = await adminToken(t.app);
  });
  // The trial allows 3 data sources: each test starts with none.
  beforeEach(async () => {
    for (const ds of json<{ items: Array<{ id: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items) {
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${ds.id}`, headers: bearer(token) });
    }
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const list = async (query: string): Promise<ListBody> => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields?${/(^|&)limit=/.test(query) ? '' : 'limit=500&'}${query}`,
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200, response.body);
    return json<ListBody>(response);
  };
  /** `table.field → scan_change` of a list answer (sorted by name, so two answers compare as sets). */
  /** A scan a (test) second after the last one: a source's scans are ordered by when they were created. */
  const scan = async (datasourceId: string) => {
    t.clock.advance(1000);
    return scanNow(t.app, token, datasourceId);
  };
  const changes = (body: ListBody): Record<string, string | null> =>
    Object.fromEntries(
      body.items
        .map((f) => [`${f.table_name}.${f.field_name}`, f.scan_change] as const)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );

  it('changed=last_scan lists what the last finished scan of each source created, changed or re-classified; scan_change says which', async () => {
    const file = path.join(dir, 'people.db');
    const src = new BetterSqlite(file);
    src.exec(`
      create table people (id integer primary key, email text, note text, city text, contact text, info text);
      insert into people values (1, 'a@example.com', 'hello there', 'Paris', 'hello there', 'hello there');
      create table other (id integer primary key, code text);
      insert into other values (1, 'x1');
    `);
    src.close();
    const id = await createScannable(t.app, token, { kind: 'sqlite', database: file });
    const otherFile = path.join(dir, 'other.db');
    new BetterSqlite(otherFile).exec('create table things (id integer primary key, label text)');
    const otherId = await createScannable(t.app, token, { kind: 'sqlite', database: otherFile });
    const imported = await createDatasource(t.app, token);
    await importOk(t.app, token, imported, [
      { table_name: 'imp', field_name: 'email', classification_chain_path: 'Technical/Record ID' },
    ]);

    // Before any scan: nothing changed, every scan_change null.
    assert.deepEqual((await list('changed=last_scan')).items, []);
    assert.ok((await list('')).items.every((f) => f.scan_change === null));

    const first = await scan(id);
    assert.equal(first.status, 'succeeded', first.error ?? '');
    assert.equal((await scan(otherId)).status, 'succeeded');
    // First scans: every field of both sources is new; the imported field is in neither.
    assert.deepEqual(changes(await list('changed=last_scan')), {
      'other.code': 'new',
      'other.id': 'new',
      'people.city': 'new',
      'people.contact': 'new',
      'people.email': 'new',
      'people.id': 'new',
      'people.info': 'new',
      'people.note': 'new',
      'things.id': 'new',
      'things.label': 'new',
    });
    const all = await list('');
    assert.equal(
      all.items.find((f) => f.datasource_id === imported)?.scan_change,
      null,
      'an imported field was never scanned',
    );

    // A reviewer confirms email; then the source changes: email and note change format, a column comes, other stays.
    const before = await catalog(t.database, id);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/classify/fields/${before.get('people.email')!.id}/confirm`,
          headers: bearer(token),
          payload: {},
        })
      ).statusCode,
      200,
    );
    const db = new BetterSqlite(file);
    db.exec(`
      delete from people;
      insert into people values (1, '2024-01-02', '2024-01-04', 'Paris', 'jane.doe@example.com', '+44 20 7946 0958');
      alter table people add column iban text;
    `);
    db.close();
    const rescan = await scan(id);
    assert.equal(rescan.status, 'succeeded', rescan.error ?? '');
    assert.deepEqual(rescan.counts, { new: 1, changed: 4, removed: 0, unchanged: 4, classified: 4 });
    const afterRescan = await catalog(t.database, id);
    // What the classifier makes of the new formats: info (text → phone numbers) moves to another tag, note and contact do not.
    const moved = (k: string) =>
      afterRescan.get(k)!.tag_id !== before.get(k)!.tag_id || afterRescan.get(k)!.level !== before.get(k)!.level;
    assert.deepEqual(
      ['people.note', 'people.contact', 'people.info'].map(moved),
      [false, false, true],
      'the fixture re-classifies info only',
    );
    const note = afterRescan.get('people.info')!;

    const expected = {
      'people.contact': 'changed',
      'people.email': 'changed',
      'people.iban': 'new',
      'people.info': 'reclassified',
      'people.note': 'changed',
      'things.id': 'new',
      'things.label': 'new',
    };
    assert.deepEqual(changes(await list('changed=last_scan')), expected);
    // Every sort, and the other filters, combine with it.
    for (const sort of ['risk', 'updated_at', 'name', 'outlier_score'])
      assert.deepEqual(changes(await list(`changed=last_scan&sort=${sort}`)), expected, sort);
    const own = {
      'people.contact': 'changed',
      'people.email': 'changed',
      'people.iban': 'new',
      'people.info': 'reclassified',
      'people.note': 'changed',
    };
    assert.deepEqual(changes(await list(`changed=last_scan&datasource_id=${id}`)), own);
    const { 'people.email': _confirmed, ...unreviewed } = own;
    assert.deepEqual(changes(await list(`changed=last_scan&datasource_id=${id}&review_status=unreviewed`)), unreviewed);
    assert.deepEqual(changes(await list(`changed=last_scan&review_status=confirmed`)), { 'people.email': 'changed' });
    assert.deepEqual(changes(await list(`changed=last_scan&q=IBA`)), { 'people.iban': 'new' });
    assert.deepEqual(changes(await list(`changed=last_scan&datasource_id=${imported}`)), {});
    // Pages of the view are keyset pages like any other.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ListBody = await list(`changed=last_scan&sort=name&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.items.map((f) => `${f.table_name}.${f.field_name}`));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(paged.sort(), Object.keys(expected).sort());
    // Outside the view the fields say nothing changed; the single-field answer agrees with the list.
    const city = (await list(`datasource_id=${id}&q=city`)).items[0]!;
    assert.equal(city.scan_change, null, 'untouched by the last scan');
    const one = json<Item>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${note.id}`, headers: bearer(token) }),
    );
    assert.equal(one.scan_change, 'reclassified');

    // An unchanged rescan touches nothing: the source leaves the view, the other source's last scan still counts.
    const quiet = await scan(id);
    assert.deepEqual(quiet.counts, { new: 0, changed: 0, removed: 0, unchanged: 9, classified: 0 });
    assert.deepEqual(changes(await list('changed=last_scan')), { 'things.id': 'new', 'things.label': 'new' });
    assert.equal(
      json<Item>(await t.app.inject({ method: 'GET', url: `/api/v1/fields/${note.id}`, headers: bearer(token) }))
        .scan_change,
      null,
    );
  });

  it('refuses an unknown changed view and a non-boolean include_sample with 400', async () => {
    for (const query of ['changed=yesterday', 'changed=', 'include_sample=maybe']) {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1/fields?${query}`, headers: bearer(token) });
      assert.equal(response.statusCode, 400, query);
      assert.equal(problem(response).code, 'validation_failed');
    }
  });

  it('include_sample=false leaves out the sample data sources; the default keeps them', async () => {
    const sample = await createDatasource(t.app, token, `sample-${process.pid}`);
    await importOk(t.app, token, sample, [
      { table_name: 'demo', field_name: 'sample_email', classification_chain_path: 'Technical/Record ID' },
    ]);
    await t.database.db.updateTable('datasources').set({ is_sample: 1 }).where('id', '=', sample).execute();
    const own = await createDatasource(t.app, token);
    await importOk(t.app, token, own, [
      { table_name: 'crm', field_name: 'sample_email', classification_chain_path: 'Technical/Record ID' },
    ]);
    for (const sort of ['risk', 'updated_at', 'name']) {
      const withSample = await list(`q=sample_email&sort=${sort}`);
      assert.deepEqual(withSample.items.map((f) => f.datasource_id).sort(), [own, sample].sort(), sort);
      assert.deepEqual((await list(`q=sample_email&sort=${sort}&include_sample=true`)).items.length, 2);
      assert.deepEqual(
        (await list(`q=sample_email&sort=${sort}&include_sample=false`)).items.map((f) => f.datasource_id),
        [own],
        sort,
      );
    }
    assert.deepEqual((await list(`datasource_id=${sample}&include_sample=false`)).items, []);
    assert.ok((await list('include_sample=false')).items.every((f) => f.datasource_id !== sample));
  });

  it('q finds a substring of the table or field name, case-insensitively, wildcards and quotes taken literally; deleted fields are gone', async () => {
    const source = await createDatasource(t.app, token);
    const names = [
      ['crm.Contacts', 'Email_Address'],
      ['crm.contacts', 'phone'],
      ['billing', 'payer_email'],
      ['billing', 'pct%_done'],
      ['billing', 'say "hi"'],
      ['hr.people', 'birth_date'],
    ];
    await importOk(
      t.app,
      token,
      source,
      names.map(([table, field]) => ({
        table_name: table!,
        field_name: field!,
        classification_chain_path: 'Technical/Record ID',
      })),
    );
    const found = async (q: string, extra = '') =>
      (await list(`datasource_id=${source}&q=${encodeURIComponent(q)}${extra}`)).items
        .map((f) => `${f.table_name}.${f.field_name}`)
        .sort();
    for (const sort of ['risk', 'updated_at', 'name']) {
      assert.deepEqual(
        await found('EMAIL', `&sort=${sort}`),
        ['billing.payer_email', 'crm.Contacts.Email_Address'],
        sort,
      );
      assert.deepEqual(
        await found('contacts', `&sort=${sort}&review_status=unreviewed`),
        ['crm.Contacts.Email_Address', 'crm.contacts.phone'],
        sort,
      );
    }
    // Pages of a substring search in name order follow the name order.
    const byName: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ListBody = await list(
        `datasource_id=${source}&q=ill&sort=name&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      byName.push(...page.items.map((f) => f.field_name));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(byName, ['payer_email', 'pct%_done', 'say "hi"']);
    assert.deepEqual(await found('%_d'), ['billing.pct%_done'], 'a % and _ are characters, not wildcards');
    assert.deepEqual(await found('_d'), ['billing.pct%_done', 'hr.people.birth_date'], 'two characters');
    assert.deepEqual(await found('"hi"'), ['billing.say "hi"']);
    assert.deepEqual(await found('h'), ['billing.say "hi"', 'crm.contacts.phone', 'hr.people.birth_date']);
    assert.deepEqual(await found('r.peo'), ['hr.people.birth_date'], 'the table name as stored, dot included');
    assert.deepEqual(await found('nothing-like-it'), []);
    // A field re-imported keeps being found; the fields of a deleted source are not found any more.
    await importOk(t.app, token, source, [
      { table_name: 'billing', field_name: 'payer_email', classification_chain_path: 'Technical/Timestamp' },
    ]);
    assert.deepEqual(await found('payer'), ['billing.payer_email']);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${source}`, headers: bearer(token) }))
        .statusCode,
      204,
    );
    assert.deepEqual((await list('q=payer_email')).items, []);
  });

  it('answers scores rounded to 3 decimals (the stored value keeps its precision for paging)', async () => {
    const source = await createDatasource(t.app, token);
    const [a, b] = (
      await importOk(t.app, token, source, [
        { table_name: 'r', field_name: 'a', classification_chain_path: 'Technical/Record ID' },
        { table_name: 'r', field_name: 'b', classification_chain_path: 'Technical/Record ID' },
      ])
    ).field_ids as [string, string];
    await t.database.db
      .updateTable('fields')
      .set({ outlier_score: 0.123456789, risk: 0.987654321, severity: 'low' })
      .where('id', '=', a)
      .execute();
    await t.database.db
      .updateTable('fields')
      .set({ outlier_score: 0.12345, risk: 0.98765, severity: 'low' })
      .where('id', '=', b)
      .execute();
    const body = await list(`datasource_id=${source}&sort=outlier_score`);
    assert.deepEqual(
      body.items.map((f) => f.outlier_score),
      [0.123, 0.123],
    );
    const paged = await list(`datasource_id=${source}&sort=risk&limit=1`);
    const rest = await list(`datasource_id=${source}&sort=risk&limit=1&cursor=${paged.next_cursor}`);
    assert.deepEqual([paged.items[0]!.id, rest.items[0]!.id], [a, b], 'the cursor pages on the stored value');
    // Every number in a list answer has at most 3 decimals.
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/fields?limit=500', headers: bearer(token) });
    assert.doesNotMatch(response.body, /\d\.\d{4,}/);
  });
});
