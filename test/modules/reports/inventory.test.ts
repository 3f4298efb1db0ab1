import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, manyFields } from '../fields/factories.js';
import { confirm, defer } from '../review/factories.js';

interface Inventory {
  generated_at: string;
  levels: Array<{ code: string; name: string }>;
  totals: { fields: number; confirmed: number; unreviewed: number; deferred: number };
  by_level: Array<{ level: string; fields: number; confirmed: number }>;
  by_datasource: Array<{
    datasource_id: string;
    name: string;
    is_sample: boolean;
    fields: number;
    confirmed: number;
    by_level: Record<string, number>;
    high_risk: number;
  }>;
  by_tag: Array<{ tag_id: number; chain_path: string; fields: number; by_level: Record<string, number> }>;
}

describeEachDatabase('inventory report', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    // Severities are set by hand below; the metrics worker would overwrite them whenever its round comes.
    await t.app.services.metricsWorker.stop();
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  const inventory = async (as = token): Promise<Inventory> => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/reports/inventory', headers: bearer(as) });
    assert.equal(response.statusCode, 200, response.body);
    return json<Inventory>(response);
  };

  it('is all zeros on an empty catalog, with every configured level listed', async () => {
    const report = await inventory();
    assert.deepEqual(report.totals, { fields: 0, confirmed: 0, unreviewed: 0, deferred: 0 });
    assert.deepEqual(
      report.by_level.map((l) => l.level),
      report.levels.map((l) => l.code),
    );
    assert.ok(report.by_level.every((l) => l.fields === 0));
    assert.deepEqual(report.by_tag, []);
    assert.ok(!Number.isNaN(Date.parse(report.generated_at)));
  });

  it('counts by review state, level, data source (levels, high risk) and tag', async () => {
    const a = await createDatasource(t.app, token, `inv-a-${kind}`);
    const b = await createDatasource(t.app, token, `inv-b-${kind}`);
    const empty = await createDatasource(t.app, token, `inv-empty-${kind}`);
    const aIds = (
      await importOk(
        t.app,
        token,
        a,
        manyFields(6, 'a', 'Technical/Record ID').map((f, i) => ({ ...f, level: i < 4 ? 'L1' : 'L4' })),
      )
    ).field_ids;
    const bIds = (
      await importOk(
        t.app,
        token,
        b,
        manyFields(3, 'b', 'Personal/Contact/Email address').map((f) => ({ ...f, level: 'L4' })),
      )
    ).field_ids;
    assert.equal((await confirm(t.app, token, aIds[0]!, {})).statusCode, 200);
    assert.equal((await confirm(t.app, token, bIds[0]!, {})).statusCode, 200);
    assert.equal((await defer(t.app, token, aIds[1]!, { reason: 'ask the owner' })).statusCode, 200);
    // High risk: unreviewed and severity high. A confirmed field with severity high does not count.
    await t.database.db
      .updateTable('fields')
      .set({ severity: 'high', outlier_score: 0.95 })
      .where('id', 'in', [bIds[0]!, bIds[1]!, bIds[2]!])
      .execute();

    const report = await inventory();
    assert.deepEqual(report.totals, { fields: 9, confirmed: 2, unreviewed: 6, deferred: 1 });
    const level = new Map(report.by_level.map((l) => [l.level, l]));
    assert.deepEqual(level.get('L1'), { level: 'L1', fields: 4, confirmed: 1 });
    assert.deepEqual(level.get('L4'), { level: 'L4', fields: 5, confirmed: 1 });
    assert.equal(level.get('L5')?.fields, 0);

    const source = new Map(report.by_datasource.map((s) => [s.datasource_id, s]));
    assert.equal(source.get(a)?.fields, 6);
    assert.equal(source.get(a)?.confirmed, 1);
    assert.deepEqual(source.get(a)?.by_level, { L1: 4, L2: 0, L3: 0, L4: 2, L5: 0 });
    assert.equal(source.get(a)?.high_risk, 0);
    assert.equal(source.get(b)?.high_risk, 2);
    assert.equal(source.get(b)?.name, `inv-b-${kind}`);
    assert.deepEqual(
      source.get(empty)?.by_level,
      { L1: 0, L2: 0, L3: 0, L4: 0, L5: 0 },
      'an empty data source is listed',
    );

    assert.deepEqual(
      report.by_tag.map((tag) => [tag.chain_path, tag.fields]),
      [
        ['Technical/Record ID', 6],
        ['Personal/Contact/Email address', 3],
      ],
    );
    assert.deepEqual(
      report.by_tag.map((tag) => tag.by_level),
      [
        { L1: 4, L2: 0, L3: 0, L4: 2, L5: 0 },
        { L1: 0, L2: 0, L3: 0, L4: 3, L5: 0 },
      ],
      'each tag counted per level (every configured level present)',
    );
    assert.equal(
      report.by_tag.reduce((n, tag) => n + tag.fields, 0),
      report.totals.fields,
    );
  });

  it('is open to every role that may read fields; 401 without a token', async () => {
    const observer = await createUser(t.app, ['observer']);
    assert.equal((await inventory(observer.token)).totals.fields, 9);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/reports/inventory' });
    assert.equal(problem(anonymous).code, 'unauthorized');
  });
});

// SQLite only: PostgreSQL chooses its plan by its statistics (a small test table is read whole); the 1M-field
// figures of both databases are in docs/benchmarks.md (bench/export.ts).
describe('inventory report [sqlite]: its counts read covering indexes', () => {
  it('counts by data source and level, and by tag and level, from indexes that hold every column they read (no row is visited)', async () => {
    const t = await buildTestApp('sqlite');
    try {
      const plan = async (query: string): Promise<string> =>
        (await sql.raw<{ detail: string }>(`explain query plan ${query}`).execute(t.database.db)).rows
          .map((r) => r.detail)
          .join(' | ');
      assert.match(
        await plan(
          "select datasource_id, level, count(*), sum(case when review_status = 'confirmed' then 1 else 0 end), sum(case when review_status = 'unreviewed' and severity = 'high' then 1 else 0 end) from fields group by datasource_id, level",
        ),
        /COVERING INDEX fields_inventory_idx/,
      );
      assert.match(
        await plan('select tag_id, level, count(*) from fields group by tag_id, level'),
        /COVERING INDEX fields_tag_level_idx/,
      );
    } finally {
      await t.close();
    }
  });
});
