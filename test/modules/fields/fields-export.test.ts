import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { EXPORT_PAGE_SIZE } from '../../../src/modules/fields/fields.service.js';
import { EXPORT_COLUMNS } from '../../../src/modules/fields/fields.schemas.js';
import { adminToken, bearer, buildTestApp, createUser, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, manyFields } from './factories.js';

type Row = Record<(typeof EXPORT_COLUMNS)[number], string>;

/** The CSV as records keyed by its header (csv-parse: RFC 4180, quoted line breaks kept). */
function parseCsv(text: string): Row[] {
  return parse(text, { columns: true, bom: true }) as Row[];
}

describeEachDatabase('field export', (kind) => {
  let t: TestApp;
  let token: string;
  let source: string;
  let other: string;
  let tricky: Map<string, string>;

  before(async () => {
    t = await buildTestApp(kind);
    // The severities below are set by hand; the metrics worker would overwrite them whenever its round comes.
    await t.app.services.metricsWorker.stop();
    token = await adminToken(t.app);
    source = await createDatasource(t.app, token, `export-src-${kind}`);
    other = await createDatasource(t.app, token, `=HYPERLINK("x"), other ${kind}`);
    // Names a spreadsheet would misread: quotes, commas, leading formula characters.
    const names = ['plain', 'with,comma', 'with "quotes"', '=SUM(A1:A2)', '+cmd', '-1+1', '@import', 'ok'];
    const ids = (
      await importOk(
        t.app,
        token,
        source,
        names.map((n) => ({
          table_name: 'customers',
          field_name: n,
          data_type: 'text',
          classification_chain_path: 'Technical/Record ID',
        })),
      )
    ).field_ids;
    tricky = new Map(names.map((n, i) => [ids[i]!, n]));
    // A scan of a real database can bring identifiers with line breaks and tabs (quoted identifiers): stored as found.
    const multiline = (
      await importOk(t.app, token, source, [
        { table_name: 'customers', field_name: 'multi', classification_chain_path: 'Technical/Record ID' },
      ])
    ).field_ids[0]!;
    await t.database.db
      .updateTable('fields')
      .set({ field_name: 'line one\nline two', data_type: '\tvarchar' })
      .where('id', '=', multiline)
      .execute();
    tricky.set(multiline, 'line one\nline two');
    await importOk(t.app, token, other, manyFields(5, 'o', 'Personal/Contact/Email address'));
    await t.database.db
      .updateTable('fields')
      .set({ severity: 'high', outlier_score: 0.9 })
      .where('datasource_id', '=', other)
      .execute();
  });
  after(async () => t.close());

  const get = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api/v1/fields/export${query}`, headers: { ...bearer(token), ...headers } });

  describe('CSV', () => {
    it('has the header row, CRLF line ends and one record per field, in a stable order', async () => {
      const response = await get('?format=csv');
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^text\/csv/);
      assert.match(
        String(response.headers['content-disposition']),
        /^attachment; filename="fieldlens-fields-.*\.csv"$/,
      );
      assert.ok(response.body.startsWith(`${EXPORT_COLUMNS.join(',')}\r\n`), response.body.slice(0, 200));
      const rows = parseCsv(response.body);
      assert.equal(rows.length, tricky.size + 5);
      const again = parseCsv((await get('?format=csv')).body);
      assert.deepEqual(
        again.map((r) => r.id),
        rows.map((r) => r.id),
        'same order twice',
      );
    });

    it('quotes commas, quotes and line breaks (RFC 4180) and prefixes formula cells with an apostrophe', async () => {
      const body = (await get(`?format=csv&datasource_id=${source}`)).body;
      const rows = parseCsv(body);
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const [id, name] of tricky) {
        const row = byId.get(id);
        assert.ok(row, `field ${name} exported`);
        const expected = /^[=+\-@\t\r]/.test(name) ? `'${name}` : name;
        assert.equal(row.field_name, expected, `field_name of ${JSON.stringify(name)}`);
      }
      // On the wire: the quoted forms, the line break inside quotes, nothing a spreadsheet would evaluate.
      assert.ok(body.includes('"with,comma"'));
      assert.ok(body.includes('"with ""quotes"""'));
      assert.ok(body.includes('"line one\nline two"'));
      assert.ok(body.includes(",'\tvarchar,") || body.includes(',"\'\tvarchar",'), 'a leading tab is prefixed');
      for (const line of body.split('\r\n')) {
        for (const cell of line.split(',')) assert.doesNotMatch(cell, /^"?[=+@]/, `no cell starts a formula: ${line}`);
      }
      const otherRows = parseCsv((await get(`?format=csv&datasource_id=${other}`)).body);
      assert.equal(otherRows[0]!.datasource, `'=HYPERLINK("x"), other ${kind}`);
    });

    it('gives empty cells for nulls and the contract columns for a field', async () => {
      const rows = parseCsv((await get(`?datasource_id=${other}`)).body);
      const row = rows[0]!;
      assert.equal(row.chain_path, 'Personal/Contact/Email address');
      assert.equal(row.review_status, 'unreviewed');
      assert.equal(row.lock_level, '');
      assert.equal(row.classification_source, 'import');
      assert.equal(row.classification_confidence, '');
      assert.equal(row.severity, 'high');
      assert.equal(row.outlier_score, '0.9');
    });
  });

  it('answers NDJSON by format or by Accept, one JSON object per field with the same keys', async () => {
    for (const response of [await get('?format=ndjson'), await get('', { accept: 'application/x-ndjson' })]) {
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/x-ndjson/);
      const lines = response.body.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, tricky.size + 5);
      const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(Object.keys(records[0]!), [...EXPORT_COLUMNS]);
      const multi = records.find((r) => r.field_name === 'line one\nline two');
      assert.ok(multi, 'the line break survives inside one NDJSON line');
      assert.ok(
        records.some((r) => r.field_name === '=SUM(A1:A2)'),
        'NDJSON is data, not for spreadsheets: no prefix',
      );
    }
    const csv = await get('', { accept: 'text/csv' });
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
  });

  it('respects the list filters', async () => {
    const high = parseCsv((await get('?severity=high')).body);
    assert.equal(high.length, 5);
    assert.ok(high.every((r) => r.severity === 'high'));
    const named = parseCsv((await get(`?q=comma&datasource_id=${source}`)).body);
    assert.deepEqual(
      named.map((r) => r.field_name),
      ['with,comma'],
    );
    const empty = await get('?review_status=confirmed');
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.body, `${EXPORT_COLUMNS.join(',')}\r\n`, 'only the header when nothing matches');
  });

  it('streams past one page: every field once, across keyset pages', async () => {
    const big = await createDatasource(t.app, token);
    const count = EXPORT_PAGE_SIZE + 37;
    await importOk(t.app, token, big, manyFields(count, 'page'));
    const rows = parseCsv((await get(`?datasource_id=${big}`)).body);
    assert.equal(rows.length, count);
    assert.equal(new Set(rows.map((r) => r.id)).size, count);
    const keys = rows.map((r) => [r.table_name, r.field_name] as const);
    const sorted = [...keys].sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
    assert.deepEqual(keys, sorted, 'in (table, field) order within the data source');
  });

  it('is open to every role that may list fields, and refuses bad input with problem+json', async () => {
    const observer = await createUser(t.app, ['observer']);
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/fields/export',
      headers: bearer(observer.token),
    });
    assert.equal(response.statusCode, 200);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/fields/export' });
    assert.equal(problem(anonymous).code, 'unauthorized');
    for (const query of ['?format=xlsx', '?severity=extreme', '?datasource_id=not-a-uuid', '?limit=5']) {
      const bad = await get(query);
      assert.equal(bad.statusCode, 400, query);
      assert.equal(problem(bad).code, 'validation_failed');
    }
  });
});
