// A reviewer's decision closes the question until the field itself changes: neither a rescan of the unchanged column,
// nor a classifier re-evaluation (a taxonomy edit changes its version), nor new look-alike neighbours bring the
// classifier's other answer back as a suggestion, nor move the field back up the risk order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import BetterSqlite from 'better-sqlite3';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createScannable, scanNow, sqliteScanDir } from '../scans/helpers.js';

interface FieldBody {
  id: string;
  field_name: string;
  classification_chain_path: string;
  level: string;
  review_status: string;
  severity: string | null;
  suggested_classification: { chain_path: string; level: string } | null;
}

describeEachDatabase('decisions stick', (kind) => {
  let t: TestApp;
  let token: string;
  let dir: string;

  before(async () => {
    dir = sqliteScanDir();
    t = await buildTestApp(kind, { env: { FIELDLENS_SCAN_SQLITE_DIR: dir } });
    token = await adminToken(t.app);
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const settle = async (): Promise<void> => {
    await t.app.services.reclassifyWorker.drain();
    await t.app.services.metricsWorker.drain();
  };
  const fieldsOf = async (datasourceId: string): Promise<FieldBody[]> =>
    json<{ items: FieldBody[] }>(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${datasourceId}&limit=100`,
        headers: bearer(token),
      }),
    ).items;

  it('a changed classification a reviewer confirmed stays confirmed, without a suggestion, through a rescan, a re-evaluation and new twins', async () => {
    const file = path.join(dir, 'payroll.db');
    const db = new BetterSqlite(file);
    db.exec(
      `create table payees (id integer primary key, full_name text, email text, national_id text, paid_at text);`,
    );
    const insert = db.prepare('insert into payees (full_name, email, national_id, paid_at) values (?, ?, ?, ?)');
    for (let i = 0; i < 30; i++)
      insert.run(`Person ${i}`, `person${i}@example.org`, `${100 + i}-45-${1000 + i}`, '2026-01-02T10:00:00Z');
    db.close();
    const ds = await createScannable(t.app, token, { kind: 'sqlite', database: file });
    assert.equal((await scanNow(t.app, token, ds)).status, 'succeeded');
    await settle();

    const before = (await fieldsOf(ds)).find((f) => f.field_name === 'national_id');
    assert.ok(before);
    assert.equal(before.classification_chain_path, 'Personal/Identity/National ID number', 'the classifier found it');
    // The organisation decides otherwise (its own convention: an internal payee number, level L2).
    const decided = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${before.id}/confirm`,
      headers: bearer(token),
      payload: { classification_chain_path: 'Technical/Record ID', lock_level: 'L2' },
    });
    assert.equal(decided.statusCode, 200, decided.body);
    await settle();
    const check = async (when: string): Promise<void> => {
      const f = (await fieldsOf(ds)).find((x) => x.id === before.id);
      assert.ok(f, when);
      assert.equal(f.review_status, 'confirmed', when);
      assert.equal(f.classification_chain_path, 'Technical/Record ID', when);
      assert.equal(f.level, 'L2', when);
      assert.equal(
        f.suggested_classification,
        null,
        `${when}: the classifier's answer does not come back as a suggestion`,
      );
      assert.equal(f.severity, 'low', when);
    };
    await check('after the decision');

    // A rescan of the unchanged column.
    assert.equal((await scanNow(t.app, token, ds)).status, 'succeeded');
    await settle();
    await check('after a rescan');

    // A classifier re-evaluation: any taxonomy edit changes the version every classifier-classified field is re-evaluated against.
    const tags = json<{ items: Array<{ id: number; chain_path: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) }),
    ).items;
    const nid = tags.find((x) => x.chain_path === 'Personal/Identity/National ID number');
    assert.ok(nid);
    const edited = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/classification/tags/${nid.id}`,
      headers: bearer(token),
      payload: { description: 'A national identity number (SSN, NINO, …)' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    await settle();
    await check('after a re-evaluation');

    // New twins elsewhere, classified by the classifier as national ids, change the field's neighbourhood.
    const twin = path.join(dir, 'payroll-copy.db');
    fs.copyFileSync(file, twin);
    const copy = await createScannable(t.app, token, { kind: 'sqlite', database: twin });
    assert.equal((await scanNow(t.app, token, copy)).status, 'succeeded');
    await settle();
    const twinField = (await fieldsOf(copy)).find((f) => f.field_name === 'national_id');
    assert.equal(twinField?.classification_chain_path, 'Personal/Identity/National ID number');
    await check('after new twins');
  });
});
