import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, manyFields } from './factories.js';

interface ListBody {
  items: Array<{
    id: string;
    datasource_id: string;
    table_name: string;
    field_name: string;
    level: string;
    classification_tag_id: number;
    outlier_score: number | null;
    updated_at: string;
    review_status: string;
    severity: string | null;
  }>;
  next_cursor: string | null;
}

describeEachDatabase('field list', (kind) => {
  let t: TestApp;
  let token: string;
  let source: string;
  let ids: string[];

  before(async () => {
    t = await buildTestApp(kind);
    // The outlier scores below are set by hand; the metrics worker would overwrite them whenever its round comes.
    await t.app.services.metricsWorker.stop();
    token = await adminToken(t.app);
    source = await createDatasource(t.app, token);
    // 240 fields whose names repeat across tables (ties on the sort key are broken by id).
    const fields = Array.from({ length: 240 }, (_, i) => ({
      table_name: `table_${i % 12}`,
      field_name: `col_${Math.floor(i / 12)}`,
      data_type: 'text',
      classification_chain_path: i % 2 === 0 ? 'Technical/Record ID' : 'Technical/Timestamp',
      level: i % 3 === 0 ? 'L2' : 'L1',
    }));
    ids = (await importOk(t.app, token, source, fields)).field_ids;
    // Outlier scores as the metrics worker would store them: some equal, some missing.
    for (const [i, id] of ids.entries()) {
      if (i % 5 === 0) continue;
      await t.database.db
        .updateTable('fields')
        .set({
          outlier_score: Math.round((i % 17) * 0.05 * 1000) / 1000 + 0.01,
          severity: i % 17 > 12 ? 'high' : 'low',
        })
        .where('id', '=', id)
        .execute();
    }
  });
  after(async () => t.close());

  const list = async (query: string): Promise<ListBody> => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/fields?${query}`, headers: bearer(token) });
    assert.equal(response.statusCode, 200, response.body);
    return json<ListBody>(response);
  };

  for (const sort of ['name', 'outlier_score', 'updated_at'] as const) {
    it(`pages through every row exactly once while imports add rows (sort=${sort})`, async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let page = 0;
      do {
        const query: string = `datasource_id=${source}&sort=${sort}&limit=23${cursor ? `&cursor=${cursor}` : ''}`;
        // Each page is read while another import adds rows (names that sort before and after the cursor).
        t.clock.advance(1000);
        const [body]: [ListBody, unknown] = await Promise.all([
          list(query),
          importOk(t.app, token, source, [...manyFields(3, `a${sort}${page}`), ...manyFields(3, `z${sort}${page}`)]),
        ]);
        seen.push(...body.items.map((f) => f.id));
        cursor = body.next_cursor;
        page += 1;
      } while (cursor !== null && page < 100);
      assert.equal(new Set(seen).size, seen.length, 'no row is repeated');
      const missing = ids.filter((id) => !seen.includes(id));
      assert.deepEqual(missing, [], 'no existing row is skipped');
    });
  }

  it('orders by the sort key: name ascending, outlier_score descending with unscored last, updated_at descending', async () => {
    const byName = await list(`datasource_id=${source}&sort=name&limit=500`);
    const names = byName.items.map((f) => f.field_name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );

    const byScore = (await list(`datasource_id=${source}&sort=outlier_score&limit=500`)).items.map(
      (f) => f.outlier_score,
    );
    const firstNull = byScore.indexOf(null);
    assert.ok(firstNull > 0);
    assert.ok(
      byScore.slice(firstNull).every((s) => s === null),
      'unscored fields come last',
    );
    const scored = byScore.slice(0, firstNull) as number[];
    assert.deepEqual(
      scored,
      [...scored].sort((a, b) => b - a),
    );

    const byUpdated = (await list(`datasource_id=${source}&sort=updated_at&limit=500`)).items.map((f) => f.updated_at);
    assert.deepEqual(byUpdated, [...byUpdated].sort().reverse());
  });

  it('answers every filter in outlier order exactly as the filtered catalog sorted (the order walked with the filters skipped, or a filter read and sorted)', async () => {
    const other = await createDatasource(t.app, token);
    const extra = (await importOk(t.app, token, other, manyFields(30, 'other'))).field_ids;
    await t.database.db
      .updateTable('fields')
      .set({ outlier_score: 0.5, severity: 'medium' })
      .where('id', 'in', extra.slice(0, 20))
      .execute();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${ids[1]}/defer`,
      headers: bearer(token),
      payload: { reason: 'order test' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${extra[2]}/defer`,
      headers: bearer(token),
      payload: { reason: 'order test' },
    });
    const everything: ListBody['items'] = [];
    let next: string | null = null;
    do {
      const page: ListBody = await list(`sort=name&limit=500${next ? `&cursor=${next}` : ''}`);
      everything.push(...page.items);
      next = page.next_cursor;
    } while (next !== null);
    const tagId = everything[0]?.classification_tag_id as number;
    const expected = (keep: (f: ListBody['items'][number]) => boolean) =>
      everything
        .filter(keep)
        .sort((a, b) =>
          a.outlier_score === b.outlier_score
            ? a.id < b.id
              ? 1
              : -1
            : a.outlier_score === null
              ? 1
              : b.outlier_score === null
                ? -1
                : b.outlier_score - a.outlier_score,
        )
        .map((f) => f.id);
    const cases: Array<[string, (f: ListBody['items'][number]) => boolean]> = [
      ['', () => true],
      [`datasource_id=${other}`, (f) => f.datasource_id === other],
      ['review_status=deferred', (f) => f.review_status === 'deferred'],
      [
        `datasource_id=${source}&review_status=unreviewed`,
        (f) => f.datasource_id === source && f.review_status === 'unreviewed',
      ],
      [`tag_id=${tagId}`, (f) => f.classification_tag_id === tagId],
      ['level=L2', (f) => f.level === 'L2'],
      // A substring matching half the catalog (SQLite walks the order's index and probes the matches) and a rare one
      // (it reads the matches and sorts them): the same answer either way.
      ['q=COL_1', (f) => f.field_name.includes('col_1')],
      ['review_status=unreviewed&q=col_1', (f) => f.review_status === 'unreviewed' && f.field_name.includes('col_1')],
      ['q=col_19', (f) => f.field_name.includes('col_19')],
    ];
    for (const [filter, keep] of cases) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: ListBody = await list(`${filter}&sort=outlier_score&limit=40${cursor ? `&cursor=${cursor}` : ''}`);
        ids.push(...page.items.map((f) => f.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(ids, expected(keep), `filter "${filter}"`);
    }
    // Name order with a name substring (on PostgreSQL the page's ids are read first, from a name-order index): the
    // catalog's name order, restricted to the matches, page after page.
    for (const [filter, keep] of cases.filter(([f]) => f.includes('q='))) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page: ListBody = await list(`${filter}&sort=name&limit=40${cursor ? `&cursor=${cursor}` : ''}`);
        ids.push(...page.items.map((f) => f.id));
        cursor = page.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(
        ids,
        everything.filter(keep).map((f) => f.id),
        `filter "${filter}" in name order`,
      );
    }
  });

  it('filters by level, tag, review status, severity, data source and name substring', async () => {
    const l2 = await list(`datasource_id=${source}&level=L2&limit=500`);
    assert.ok(l2.items.length > 0 && l2.items.every((f) => f.level === 'L2'));
    const tagId = l2.items[0]?.classification_tag_id as number;
    const byTag = await list(`tag_id=${tagId}&limit=500`);
    assert.ok(byTag.items.every((f) => f.classification_tag_id === tagId));
    const high = await list(`severity=high&limit=500`);
    assert.ok(high.items.length > 0 && high.items.every((f) => f.severity === 'high'));
    assert.equal((await list('review_status=confirmed')).items.length, 0);
    const q = await list(`q=TABLE_1${encodeURIComponent('1')}&datasource_id=${source}&limit=500`);
    assert.ok(
      q.items.length >= 20 && q.items.every((f) => f.table_name === 'table_11'),
      'case-insensitive substring of the table name',
    );
    const underscore = await list(`q=${encodeURIComponent('%')}&limit=5`);
    assert.equal(underscore.items.length, 0, 'LIKE wildcards in q are taken literally');
    // The end of a table name and the start of its field's name are not one name (`table_11` + `col_3`).
    assert.equal((await list(`q=11col&limit=5`)).items.length, 0, 'no match across the two names');
    const control = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fields?q=${encodeURIComponent('11\u0001col')}`,
      headers: bearer(token),
    });
    assert.equal(control.statusCode, 400, 'a control character in q is refused');
    assert.equal((await list(`datasource_id=00000000-0000-4000-8000-000000000000`)).items.length, 0);
  });

  it('refuses a malformed cursor, a cursor of another sort, and a limit above 500', async () => {
    const first = await list(`sort=name&limit=2`);
    for (const query of [
      'cursor=not-a-cursor',
      `sort=updated_at&cursor=${first.next_cursor}`,
      'limit=501',
      'limit=0',
      'sort=size',
    ]) {
      const response = await t.app.inject({ method: 'GET', url: `/api/v1/fields?${query}`, headers: bearer(token) });
      assert.equal(response.statusCode, 400, query);
      assert.equal(problem(response).code, 'validation_failed');
    }
  });

  it('answers 404 for an unknown field id and 400 for a malformed one', async () => {
    const missing = await t.app.inject({
      method: 'GET',
      url: '/api/v1/fields/00000000-0000-4000-8000-000000000000',
      headers: bearer(token),
    });
    assert.equal(missing.statusCode, 404);
    assert.equal(problem(missing).code, 'not_found');
    const malformed = await t.app.inject({ method: 'GET', url: '/api/v1/fields/123', headers: bearer(token) });
    assert.equal(malformed.statusCode, 400);
  });
});
