// An organisation's classification rules: CRUD and its limits, linear-time patterns only, what a rule decides (and
// what it must never touch), value parts on samples, scope by data source, re-evaluation on change, the preview.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { auditActions, createDatasource, importOk } from '../fields/factories.js';

interface RuleBody {
  id: string;
  name: string;
  tag_id: number;
  chain_path: string;
  level: string | null;
  priority: number;
  enabled: boolean;
  match: Record<string, unknown>;
  datasource_ids: string[] | null;
}
interface FieldBody {
  id: string;
  field_name: string;
  classification_chain_path: string;
  level: string;
  classification_source: string;
  classification_confidence: number | null;
  classification_evidence: Array<{ factor: string; detail: string }>;
}

describeEachDatabase('classification rules', (kind) => {
  let t: TestApp;
  let token: string;
  let ds: string;
  let other: string;
  let loyalty: number;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
    ds = await createDatasource(t.app, token);
    other = await createDatasource(t.app, token);
    const tag = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classification/tags',
      headers: bearer(token),
      payload: { name: 'Loyalty card number', parent_id: null, default_level: 'L3' },
    });
    loyalty = json<{ id: number }>(tag).id;
  });
  after(async () => t.close());

  const post = (url: string, payload: unknown, as = token) =>
    t.app.inject({ method: 'POST', url, headers: bearer(as), payload: payload as Record<string, unknown> });
  const createRule = async (payload: Record<string, unknown>): Promise<RuleBody> => {
    const response = await post('/api/v1/classification/rules', payload);
    assert.equal(response.statusCode, 201, response.body);
    return json<RuleBody>(response);
  };
  const patchRule = (id: string, payload: unknown, as = token) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/v1/classification/rules/${id}`,
      headers: bearer(as),
      payload: payload as Record<string, unknown>,
    });
  const deleteRule = (id: string, as = token) =>
    t.app.inject({ method: 'DELETE', url: `/api/v1/classification/rules/${id}`, headers: bearer(as) });
  const field = async (id: string): Promise<FieldBody> =>
    json<FieldBody>(await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) }));
  const settle = async (): Promise<void> => {
    await t.app.services.reclassifyWorker.drain();
  };

  it('creates, lists, changes and deletes a rule, each audited; only taxonomy writers may (403, nothing changed)', async () => {
    const rule = await createRule({ name: 'loyalty by name', tag_id: loyalty, match: { column_name: '^treuekarte' } });
    assert.equal(rule.chain_path, 'Loyalty card number');
    assert.equal(rule.level, null);
    assert.equal(rule.priority, 0);
    assert.equal(rule.enabled, true);
    const list = json<{ items: RuleBody[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/rules', headers: bearer(token) }),
    ).items;
    assert.ok(list.some((r) => r.id === rule.id));

    const changed = await patchRule(rule.id, { priority: 5, level: 'L4' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(json<RuleBody>(changed).priority, 5);
    assert.equal(json<RuleBody>(changed).match.column_name, '^treuekarte', 'the other attributes stay');

    const operator = await createUser(t.app, ['operator']);
    assert.equal(
      (
        await post(
          '/api/v1/classification/rules',
          { name: 'x', tag_id: loyalty, match: { column_name: 'x' } },
          operator.token,
        )
      ).statusCode,
      403,
    );
    assert.equal((await patchRule(rule.id, { priority: 1 }, operator.token)).statusCode, 403);
    assert.equal((await deleteRule(rule.id, operator.token)).statusCode, 403);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/classification/rules', headers: bearer(operator.token) }))
        .statusCode,
      200,
      'any reader lists them',
    );

    assert.equal((await deleteRule(rule.id)).statusCode, 204);
    assert.equal((await deleteRule(rule.id)).statusCode, 404);
    for (const action of ['rule.created', 'rule.updated', 'rule.deleted'])
      assert.equal((await auditActions(t.database, action)).filter((e) => e.target_id === rule.id).length, 1, action);
    const updated = (await auditActions(t.database, 'rule.updated')).find((e) => e.target_id === rule.id);
    assert.deepEqual(
      [
        (updated?.details.before as { priority: number }).priority,
        (updated?.details.after as { priority: number }).priority,
      ],
      [0, 5],
    );
  });

  it('refuses a pattern that cannot run in linear time, a rule with nothing to match, unknown tags, levels and sources, and a taken name', async () => {
    for (const [match, path] of [
      [{ column_name: '(a)\\1' }, '/match/column_name'],
      [{ comment: '(?=card)' }, '/match/comment'],
      [{ values: { pattern: '(x+)+\\2' } }, '/match/values/pattern'],
    ] as const) {
      const response = await post('/api/v1/classification/rules', { name: 'bad', tag_id: loyalty, match });
      assert.equal(response.statusCode, 400, JSON.stringify(match));
      assert.equal(problem(response).errors?.[0]?.path, path);
    }
    assert.equal(
      (await post('/api/v1/classification/rules', { name: 'empty', tag_id: loyalty, match: {} })).statusCode,
      400,
    );
    assert.equal(
      (
        await post('/api/v1/classification/rules', {
          name: 'empty values',
          tag_id: loyalty,
          match: { values: { min_share: 0.5 } },
        })
      ).statusCode,
      400,
    );
    assert.equal(
      (
        await post('/api/v1/classification/rules', {
          name: 'long',
          tag_id: loyalty,
          match: { column_name: 'a'.repeat(1001) },
        })
      ).statusCode,
      400,
    );
    const unknown = await post('/api/v1/classification/rules', {
      name: 'unknown',
      tag_id: 999_999,
      level: 'L9',
      datasource_ids: ['00000000-0000-4000-8000-000000000000'],
      match: { column_name: 'x' },
    });
    assert.equal(unknown.statusCode, 422);
    assert.deepEqual(
      problem(unknown).errors?.map((e) => e.path),
      ['/tag_id', '/level', '/datasource_ids/0'],
    );
    await createRule({ name: 'taken', tag_id: loyalty, match: { column_name: 'zzz_never' } });
    assert.equal(
      (await post('/api/v1/classification/rules', { name: 'taken', tag_id: loyalty, match: { column_name: 'x' } }))
        .statusCode,
      409,
    );
    assert.equal(
      json<{ items: RuleBody[] }>(
        await t.app.inject({ method: 'GET', url: '/api/v1/classification/rules', headers: bearer(token) }),
      ).items.filter((r) => r.name !== 'taken').length,
      0,
      'nothing else was stored',
    );
  });

  it('decides the fields the classifier would classify — never import-given, confirmed or locked ones — and a change re-evaluates them', async () => {
    const { field_ids } = await importOk(t.app, token, ds, [
      { table_name: 'kunden', field_name: 'treuekarte_nr', data_type: 'varchar(20)' },
      {
        table_name: 'kunden',
        field_name: 'treuekarte_alt',
        data_type: 'varchar(20)',
        classification_chain_path: 'Technical/Record ID',
        level: 'L1',
      },
      { table_name: 'kunden', field_name: 'treuekarte_pruef', data_type: 'varchar(20)' },
    ]);
    const [auto, given, confirmed] = field_ids as [string, string, string];
    assert.equal((await field(auto)).classification_source, 'classifier');
    const decided = await post(`/api/v1/classify/fields/${confirmed}/confirm`, {
      classification_chain_path: 'Technical/Hash or checksum',
      lock_level: 'L1',
    });
    assert.equal(decided.statusCode, 200, decided.body);

    const rule = await createRule({
      name: 'treuekarte',
      tag_id: loyalty,
      level: 'L4',
      priority: 10,
      match: { column_name: '^treuekarte', table_name: 'kunden', data_type_family: ['text'] },
    });
    await settle();
    const ruled = await field(auto);
    assert.equal(ruled.classification_source, 'rule');
    assert.equal(ruled.classification_chain_path, 'Loyalty card number');
    assert.equal(ruled.level, 'L4');
    assert.equal(ruled.classification_confidence, 1);
    assert.deepEqual(
      ruled.classification_evidence.map((e) => [e.factor, e.detail]),
      [['rule', 'rule treuekarte']],
    );
    assert.equal(
      (await field(given)).classification_chain_path,
      'Technical/Record ID',
      'an import-given classification stays',
    );
    assert.equal(
      (await field(confirmed)).classification_chain_path,
      'Technical/Hash or checksum',
      'a confirmed one stays',
    );

    // A new import is decided at once; a type outside the rule's families is not.
    const later = await importOk(t.app, token, ds, [
      { table_name: 'kunden', field_name: 'treuekarte_neu', data_type: 'text' },
      { table_name: 'kunden', field_name: 'treuekarte_seit', data_type: 'date' },
    ]);
    assert.equal((await field(later.field_ids[0] as string)).classification_source, 'rule');
    assert.notEqual((await field(later.field_ids[1] as string)).classification_source, 'rule');

    // Disabled: the classifier decides again.
    assert.equal((await patchRule(rule.id, { enabled: false })).statusCode, 200);
    await settle();
    assert.equal((await field(auto)).classification_source, 'classifier');
    assert.equal((await deleteRule(rule.id)).statusCode, 204);
  });

  it('judges value parts on the samples of an import, and keeps to the data sources it is scoped to', async () => {
    const rule = await createRule({
      name: 'card numbers by value',
      tag_id: loyalty,
      datasource_ids: [ds],
      match: { values: { pattern: '^TK-\\d{6}$', min_share: 0.8 } },
    });
    const samples = ['TK-000001', 'TK-123456', 'TK-654321', 'TK-111111', 'n/a'];
    const here = await importOk(t.app, token, ds, [
      { table_name: 'karten', field_name: 'nummer', data_type: 'text', sample_values: samples },
      { table_name: 'karten', field_name: 'nummer_ohne', data_type: 'text' },
      {
        table_name: 'karten',
        field_name: 'halb',
        data_type: 'text',
        sample_values: ['TK-000001', 'x', 'y', 'z', 'TK-000002'],
      },
    ]);
    const there = await importOk(t.app, token, other, [
      { table_name: 'karten', field_name: 'nummer', data_type: 'text', sample_values: samples },
    ]);
    assert.equal((await field(here.field_ids[0] as string)).classification_source, 'rule', '4 of 5 samples match');
    assert.notEqual(
      (await field(here.field_ids[1] as string)).classification_source,
      'rule',
      'no samples: a value part does not hold',
    );
    assert.notEqual(
      (await field(here.field_ids[2] as string)).classification_source,
      'rule',
      '2 of 5 is below min_share',
    );
    assert.notEqual((await field(there.field_ids[0] as string)).classification_source, 'rule', 'another data source');

    // A re-evaluation has no samples: another rule's arrival re-evaluates every field, and the field the value part
    // took on its import's samples stays the rule's (it would otherwise fall back to the classifier until a rescan).
    const unrelated = await createRule({
      name: 'unrelated',
      tag_id: loyalty,
      match: { column_name: '^nothing_matches_this$' },
    });
    await settle();
    const kept = await field(here.field_ids[0] as string);
    assert.equal(kept.classification_source, 'rule', 'a value judgment survives a re-evaluation');
    assert.equal(kept.classification_chain_path, 'Loyalty card number');
    assert.notEqual(
      (await field(here.field_ids[1] as string)).classification_source,
      'rule',
      'still no samples, still not held',
    );
    // Once the value rule itself changes, its old judgment no longer stands: back to the classifier until a scan.
    t.clock.advance(60_000);
    assert.equal(
      (await patchRule(rule.id, { match: { values: { pattern: '^TK-\\d{7}$', min_share: 0.8 } } })).statusCode,
      200,
    );
    await settle();
    assert.equal(
      (await field(here.field_ids[0] as string)).classification_source,
      'classifier',
      'the changed rule is not judged on old samples',
    );
    assert.equal((await deleteRule(unrelated.id)).statusCode, 204);
    assert.equal((await deleteRule(rule.id)).statusCode, 204);
  });

  it('previews the fields a rule would take, changing nothing', async () => {
    await importOk(t.app, token, other, [
      { table_name: 'mitglieder', field_name: 'bonuskarte_1', data_type: 'text' },
      { table_name: 'mitglieder', field_name: 'bonuskarte_2', data_type: 'text' },
      {
        table_name: 'mitglieder',
        field_name: 'bonuskarte_3',
        data_type: 'text',
        classification_chain_path: 'Technical/Record ID',
      },
    ]);
    const response = await post('/api/v1/classification/rules/preview', {
      rule: { name: 'preview', tag_id: loyalty, match: { column_name: '^bonuskarte_' } },
      limit: 1,
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ matched: number; items: Array<{ field_name: string; current_chain_path: string }> }>(response);
    assert.equal(body.matched, 2, "the import-given field is not the rule's to take");
    assert.equal(body.items.length, 1);
    assert.match(body.items[0]?.field_name ?? '', /^bonuskarte_[12]$/);
    const scoped = json<{ matched: number }>(
      await post('/api/v1/classification/rules/preview', {
        rule: { name: 'p', tag_id: loyalty, match: { column_name: '^bonuskarte_' } },
        datasource_id: ds,
      }),
    );
    assert.equal(scoped.matched, 0);
    // Type families, data sources, table and comment patterns narrow it; the listed items carry their classification.
    await importOk(t.app, token, other, [
      { table_name: 'mitglieder', field_name: 'bonuskarte_4', data_type: 'integer', comment: 'Bonuskarte der Filiale' },
      { table_name: 'filialen', field_name: 'bonuskarte_5', data_type: 'varchar(12)' },
    ]);
    const preview = async (match: object, extra: object = {}) =>
      json<{
        matched: number;
        items: Array<{ field_name: string; table_name: string; current_chain_path: string; current_level: string }>;
      }>(await post('/api/v1/classification/rules/preview', { rule: { name: 'p', tag_id: loyalty, match, ...extra } }));
    const names = async (match: object, extra: object = {}, datasourceId?: string) => {
      const response = await post('/api/v1/classification/rules/preview', {
        rule: { name: 'p', tag_id: loyalty, match, ...extra },
        ...(datasourceId ? { datasource_id: datasourceId } : {}),
      });
      assert.equal(response.statusCode, 200, response.body);
      return json<{ items: Array<{ field_name: string }> }>(response)
        .items.map((i) => i.field_name)
        .sort();
    };
    assert.deepEqual(await names({ column_name: '^bonuskarte_' }), [
      'bonuskarte_1',
      'bonuskarte_2',
      'bonuskarte_4',
      'bonuskarte_5',
    ]);
    assert.deepEqual(
      await names({ column_name: '^bonuskarte_', data_type_family: ['text'] }),
      ['bonuskarte_1', 'bonuskarte_2', 'bonuskarte_5'],
      'varchar is text',
    );
    assert.deepEqual(await names({ column_name: '^bonuskarte_', data_type_family: ['integer', 'json'] }), [
      'bonuskarte_4',
    ]);
    assert.deepEqual(
      await names({ column_name: '^bonuskarte_', data_type_family: ['uuid'] }),
      [],
      'no declared type of the family',
    );
    assert.deepEqual(
      await names({ column_name: '^bonuskarte_', table_name: '^MITGLIEDER$' }),
      ['bonuskarte_1', 'bonuskarte_2', 'bonuskarte_4'],
      'case-insensitive',
    );
    assert.deepEqual(await names({ comment: 'filiale' }), ['bonuskarte_4']);
    assert.ok((await names({ data_type_family: ['integer'] })).includes('bonuskarte_4'), 'a type part alone');
    assert.deepEqual(await names({ column_name: '^bonuskarte_' }, { datasource_ids: [ds] }), [], "the rule's scope");
    assert.deepEqual(
      await names({ column_name: '^bonuskarte_', data_type_family: ['text'] }, { datasource_ids: [ds, other] }, other),
      ['bonuskarte_1', 'bonuskarte_2', 'bonuskarte_5'],
    );
    assert.deepEqual(
      await names({ column_name: '^bonuskarte_' }, { datasource_ids: [other] }, ds),
      [],
      'the scope and the data source asked for do not meet',
    );
    const listed = await preview({ column_name: '^bonuskarte_4$' });
    assert.deepEqual(
      listed.items.map((i) => [i.table_name, i.field_name, typeof i.current_chain_path, typeof i.current_level]),
      [['mitglieder', 'bonuskarte_4', 'string', 'string']],
    );
    assert.equal(listed.matched, 1);
    assert.equal(
      json<{ items: RuleBody[] }>(
        await t.app.inject({ method: 'GET', url: '/api/v1/classification/rules', headers: bearer(token) }),
      ).items.filter((r) => r.name === 'preview').length,
      0,
    );
  });

  it('a tag with rules is not deleted without a replacement; with one, its rules move', async () => {
    const tag = json<{ id: number }>(
      await post('/api/v1/classification/tags', { name: 'Short-lived', default_level: 'L2' }),
    );
    const rule = await createRule({ name: 'short-lived', tag_id: tag.id, match: { column_name: '^kurz' } });
    const refused = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/classification/tags/${tag.id}`,
      headers: bearer(token),
    });
    assert.equal(refused.statusCode, 409);
    const done = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/classification/tags/${tag.id}?replace_with=${loyalty}`,
      headers: bearer(token),
    });
    assert.equal(done.statusCode, 204, done.body);
    const moved = json<{ items: RuleBody[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/rules', headers: bearer(token) }),
    ).items.find((r) => r.id === rule.id);
    assert.equal(moved?.tag_id, loyalty);
    assert.equal((await auditActions(t.database, 'tag.deleted')).at(-1)?.details.rules_moved, 1);
  });
});
