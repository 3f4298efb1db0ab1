import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { loadSampleCatalog } from '../../../src/modules/sample-data/sample-catalog.js';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';

interface Suggested {
  tag_id: number;
  chain_path: string;
  level: string;
  confidence: number;
}
interface FieldItem {
  id: string;
  datasource_id: string;
  table_name: string;
  field_name: string;
  classification_tag_id: number;
  classification_chain_path: string;
  level: string;
  review_status: string;
  outlier_score: number | null;
  severity: string | null;
  suggested_classification: Suggested | null;
}
interface MinibarsItem {
  field_id: string;
  outlier_score: number;
  severity: string;
  nearest_field_id: string | null;
  nearest_field_name: string | null;
  reason: string;
  suggested_classification: Suggested | null;
}

const { corrections, datasources: sampleSources } = loadSampleCatalog();
const sampleFieldCount = sampleSources.reduce((n, s) => n + s.fields.length, 0);

describeEachDatabase('risk order, suggestions and reasons on the sample catalog', (kind) => {
  let t: TestApp;
  let token: string;
  let sourceName: Map<string, string>;

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' } });
    token = await adminToken(t.app);
    await t.app.services.metricsWorker.drain();
    const sources = json<{ items: Array<{ id: string; name: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items;
    sourceName = new Map(sources.map((s) => [s.id, s.name]));
  });
  after(async () => t.close());

  const keyOf = (f: FieldItem): string => `${sourceName.get(f.datasource_id)}.${f.table_name}.${f.field_name}`;
  const byRisk = async (): Promise<FieldItem[]> => {
    const out: FieldItem[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: FieldItem[]; next_cursor: string | null } = json(
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fields?sort=risk&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
          headers: bearer(token),
        }),
      );
      out.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  };
  const minibars = async (ids: string[]): Promise<MinibarsItem[]> =>
    json<{ items: MinibarsItem[] }>(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/classify/fields/embedding-minibars',
        headers: bearer(token),
        payload: { field_ids: ids },
      }),
    ).items;

  it('ranks the seeded errors first by sort=risk', async () => {
    const list = await byRisk();
    // Paged by cursor (200 a page): every field once.
    assert.equal(list.length, sampleFieldCount);
    assert.equal(new Set(list.map((f) => f.id)).size, list.length);
    const k = corrections.size;
    const ranks = list.flatMap((f, i) => (corrections.has(keyOf(f)) ? [i] : []));
    assert.equal(ranks.length, k);
    // The first ten are all seeded errors; at least 65% of the errors are in the first k; none is below the top 30%.
    assert.deepEqual(ranks.slice(0, 10), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], `ranks ${ranks.join(' ')}`);
    assert.ok(ranks.filter((r) => r < k).length >= 0.65 * k, `ranks ${ranks.join(' ')}`);
    assert.ok(
      ranks.every((r) => r < 0.3 * list.length),
      `ranks ${ranks.join(' ')}`,
    );
    // Under-classified before over-classified among the likely-wrong: a level-only error above a same-severity field labelled too high.
    const passport = list.findIndex((f) => keyOf(f) === 'hr.Employees.PassportNo');
    assert.equal(list[passport]!.suggested_classification?.level, 'L5');
    for (const [i, f] of list.entries()) {
      if (
        f.severity === list[passport]!.severity &&
        f.suggested_classification &&
        Number(f.suggested_classification.level.slice(1)) < Number(f.level.slice(1))
      )
        assert.ok(i > passport, keyOf(f));
    }
  });

  it('does not flag correct fields alone in their tag', async () => {
    const list = await byRisk();
    for (const key of ['hr.Reviews.PerformanceRating', 'billing.payment_methods.card_expiry']) {
      const f = list.find((x) => keyOf(x) === key);
      assert.ok(f, key);
      assert.equal(f.severity, 'low', `${key}: ${f.outlier_score}`);
      assert.equal(f.suggested_classification, null, key);
    }
  });

  it('suggests the true classification on list items, GET /fields/{id} and minibars; one confirm call accepts it', async () => {
    const list = await byRisk();
    const email = list.find((f) => keyOf(f) === 'crm.contacts.email')!;
    const truth = corrections.get('crm.contacts.email')!;
    assert.equal(email.suggested_classification?.chain_path, truth.chain_path);
    assert.equal(email.suggested_classification?.level, truth.level);
    const one = json<FieldItem>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${email.id}`, headers: bearer(token) }),
    );
    assert.deepEqual(one.suggested_classification, email.suggested_classification);
    const [item] = await minibars([email.id]);
    assert.deepEqual(item!.suggested_classification, email.suggested_classification);
    assert.ok(item!.reason.includes('Personal/Contact/Email address'), item!.reason);
    const s = email.suggested_classification!;
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${email.id}/confirm`,
      headers: bearer(token),
      payload: { classification_tag_id: s.tag_id, lock_level: s.level },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await t.app.services.metricsWorker.drain();
    const after = json<FieldItem>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${email.id}`, headers: bearer(token) }),
    );
    assert.equal(after.classification_chain_path, truth.chain_path);
    assert.equal(after.level, truth.level);
    assert.equal(after.suggested_classification, null);
    assert.equal(after.severity, 'low');
  });

  it('a field confirmed as it is leaves the top of the queue', async () => {
    const before = await byRisk();
    const top = before.find((f) => f.review_status !== 'confirmed' && f.severity === 'high')!;
    const confirmed = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${top.id}/confirm`,
      headers: bearer(token),
      payload: {},
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await t.app.services.metricsWorker.drain();
    const list = await byRisk();
    const now = list.findIndex((f) => f.id === top.id);
    assert.equal(list[now]!.severity, 'low');
    assert.ok(now > list.filter((f) => f.severity !== 'low').length, `rank ${now}`);
    const [item] = await minibars([top.id]);
    assert.match(item!.reason, /^Confirmed by a reviewer/);
  });

  it('names neighbours with their data source and never cites a deleted field', async () => {
    const list = await byRisk();
    const items = await minibars(list.slice(0, 500).map((f) => f.id));
    const names = [...sourceName.values()];
    for (const item of items) {
      if (item.reason.includes('Nearest field'))
        assert.ok(
          names.some((n) => item.reason.includes(`\` in ${n} (similarity`)),
          item.reason,
        );
    }
    const legacy = [...sourceName].find(([, name]) => name === 'legacy_dwh')![0];
    const gone = new Set(list.filter((f) => f.datasource_id === legacy).map((f) => f.id));
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/datasources/${legacy}`,
      headers: bearer(token),
    });
    assert.ok(deleted.statusCode === 204 || deleted.statusCode === 200, deleted.body);
    await t.app.services.metricsWorker.drain();
    const rest = await minibars(
      list
        .filter((f) => !gone.has(f.id))
        .slice(0, 500)
        .map((f) => f.id),
    );
    assert.ok(rest.length > 300);
    for (const item of rest) {
      assert.ok(item.nearest_field_id === null || !gone.has(item.nearest_field_id), item.reason);
      assert.ok(!item.reason.includes(' in legacy_dwh '), item.reason);
    }
  });
});

describeEachDatabase('a small catalog', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('does not flag correct lone sensitive fields, and ranks a wrong one first', async () => {
    const ds = json<{ id: string }>(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(token),
        payload: { name: 'payroll', type: 'postgresql' },
      }),
    );
    const f = (
      table: string,
      field: string,
      data_type: string,
      classification_chain_path: string,
      level: string,
      comment?: string,
    ) => ({
      table_name: table,
      field_name: field,
      data_type,
      classification_chain_path,
      level,
      ...(comment ? { comment } : {}),
    });
    const fields = [
      f('employees', 'id', 'bigint', 'Technical/Record ID', 'L1'),
      f('employees', 'first_name', 'varchar(80)', 'Personal/Identity/First name', 'L3'),
      f('employees', 'last_name', 'varchar(80)', 'Personal/Identity/Last name', 'L3'),
      f('employees', 'email', 'varchar(200)', 'Personal/Contact/Email address', 'L3'),
      f('employees', 'tax_id', 'varchar(20)', 'Personal/Identity/Tax identification number', 'L5'),
      f('employees', 'created_at', 'timestamp', 'Technical/Timestamp', 'L1'),
      f('employees', 'updated_at', 'timestamp', 'Technical/Timestamp', 'L1'),
      f('payouts', 'id', 'bigint', 'Technical/Record ID', 'L1'),
      f('payouts', 'employee_id', 'bigint', 'Technical/Foreign key', 'L1'),
      f('payouts', 'bank_iban', 'varchar(34)', 'Financial/Bank account number', 'L4'),
      f('payouts', 'bonus_amount', 'numeric(12,2)', 'Financial/Salary', 'L4'),
      f('payouts', 'paid_at', 'timestamp', 'Technical/Timestamp', 'L1'),
      f(
        'payouts',
        'ssn',
        'char(11)',
        'Public reference data/Country code',
        'L1',
        'social security number of the payee',
      ),
      f('cards', 'card_cvc', 'char(3)', 'Financial/Card verification code', 'L5'),
      f('cards', 'card_id', 'bigint', 'Technical/Record ID', 'L1'),
    ];
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/v1/fields/import',
      headers: bearer(token),
      payload: { datasource_id: ds.id, fields },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    await t.app.services.metricsWorker.drain();
    const list = json<{ items: FieldItem[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/fields?sort=risk&limit=50', headers: bearer(token) }),
    ).items;
    assert.equal(list[0]!.field_name, 'ssn');
    assert.equal(list[0]!.suggested_classification?.chain_path, 'Personal/Identity/National ID number');
    for (const name of ['tax_id', 'bank_iban', 'bonus_amount', 'card_cvc']) {
      const field = list.find((x) => x.field_name === name)!;
      assert.notEqual(field.severity, 'high', `${name} ${field.outlier_score}`);
    }
  });

  it("fills the classifier's view of fields that have none (imported before it existed), and the metrics follow", async () => {
    const ssn = await t.database.db
      .selectFrom('fields')
      .select(['id', 'predicted_tag_id', 'predicted_level'])
      .where('field_name', '=', 'ssn')
      .executeTakeFirstOrThrow();
    assert.ok(ssn.predicted_tag_id !== null);
    await t.database.db
      .updateTable('fields')
      .set({ predicted_tag_id: null, predicted_level: null, predicted_confidence: null, predicted_with: null })
      .where('id', '=', ssn.id)
      .execute();
    await t.app.services.metricsWorker.drain();
    const without = json<FieldItem>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${ssn.id}`, headers: bearer(token) }),
    );
    assert.equal(without.suggested_classification, null);
    await t.app.services.reclassifyWorker.drain();
    const filled = await t.database.db
      .selectFrom('fields')
      .select(['predicted_tag_id', 'predicted_level', 'predicted_with'])
      .where('id', '=', ssn.id)
      .executeTakeFirstOrThrow();
    assert.equal(filled.predicted_tag_id, ssn.predicted_tag_id);
    assert.equal(filled.predicted_level, ssn.predicted_level);
    assert.ok(filled.predicted_with);
    await t.app.services.metricsWorker.drain();
    const back = json<FieldItem>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${ssn.id}`, headers: bearer(token) }),
    );
    assert.equal(back.suggested_classification?.chain_path, 'Personal/Identity/National ID number');
    assert.ok(back.outlier_score! > without.outlier_score!);
  });
});
