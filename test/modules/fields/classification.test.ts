import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { decodeVector, encodeVector } from '../../../src/db/database.js';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk } from './factories.js';

interface Field {
  id: string;
  classification_tag_id: number;
  classification_chain_path: string;
  level: string;
  review_status: string;
  classification_source: string;
  classification_confidence: number | null;
  classification_evidence: Array<{ factor: string; score: number; detail: string }>;
}

async function getField(app: FastifyInstance, token: string, id: string): Promise<Field> {
  const res = await app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return json<Field>(res);
}

/** Every text value of every table, for looking for a value that must never be stored. */
async function databaseText(t: TestApp): Promise<string> {
  const tables = ['fields', 'field_metrics', 'audit_log', 'datasources', 'settings', 'catalog_changes'];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(t.database.db);
    for (const row of rows.rows) for (const v of Object.values(row)) if (typeof v === 'string') parts.push(v);
  }
  return parts.join('\n');
}

// Synthetic, planted values: none of them may be stored, logged or echoed.
const PLANTED_EMAIL = 'planted.sample.7c1e@example.org';
const PLANTED_CARD = '4111111111111111';

describeEachDatabase('classification of imported fields', (kind) => {
  let t: TestApp;
  let admin: string;
  let source: string;
  before(async () => {
    t = await buildTestApp(kind, { env: { LOG_LEVEL: 'trace' } });
    admin = await adminToken(t.app);
    source = await createDatasource(t.app, admin);
  });
  after(async () => t.close());

  it('classifies a field given no tag, keeps how and why, and stores no sample value anywhere', async () => {
    const { field_ids } = await importOk(t.app, admin, source, [
      {
        table_name: 'contacts',
        field_name: 'col_17',
        data_type: 'varchar(200)',
        sample_values: [PLANTED_EMAIL, 'b.person@example.com', 'c@example.net', 'd.e@example.org'],
      },
      {
        table_name: 'payments',
        field_name: 'pan_value',
        data_type: 'varchar(19)',
        sample_values: [PLANTED_CARD, '5555555555554444', '378282246310005'],
      },
      { table_name: 'orders', field_name: 'id', data_type: 'bigint' },
      { table_name: 'orders', field_name: 'created_at', data_type: 'timestamp' },
    ]);
    const [email, card, id, created] = await Promise.all(field_ids.map((f) => getField(t.app, admin, f)));
    assert.equal(email!.classification_chain_path, 'Personal/Contact/Email address');
    assert.match(card!.classification_chain_path, /Payment card number/);
    // Nothing sensitive is a real answer: surrogate keys and timestamps land in technical tags.
    assert.match(id!.classification_chain_path, /^Technical\//);
    assert.match(created!.classification_chain_path, /^Technical\//);
    for (const f of [email!, card!, id!, created!]) {
      assert.equal(f.classification_source, 'classifier');
      assert.ok(
        f.classification_confidence !== null && f.classification_confidence >= 0 && f.classification_confidence <= 1,
      );
      assert.ok(f.classification_evidence.length > 0);
      for (const e of f.classification_evidence) {
        assert.ok(
          ['name', 'table', 'comment', 'data_type', 'values', 'confirmed_fields', 'anchor'].includes(e.factor),
          e.factor,
        );
        assert.ok(!e.detail.includes(PLANTED_EMAIL) && !e.detail.includes(PLANTED_CARD), e.detail);
      }
    }
    assert.ok(
      email!.classification_evidence.some((e) => e.factor === 'values'),
      'the sample values were weighed',
    );
    const stored = await databaseText(t);
    const logged = t.logs.join('\n');
    for (const planted of [PLANTED_EMAIL, PLANTED_CARD]) {
      assert.ok(!stored.includes(planted), `${planted} stored in the database`);
      assert.ok(!logged.includes(planted), `${planted} logged`);
    }
  });

  it("a classification given by the import is kept as given, without confidence or evidence; a reviewer's confirm says so", async () => {
    const { field_ids } = await importOk(t.app, admin, source, [
      {
        table_name: 'given',
        field_name: 'created_at',
        data_type: 'timestamp',
        classification_chain_path: 'Personal/Contact/Email address',
        level: 'L3',
      },
    ]);
    const given = await getField(t.app, admin, field_ids[0]!);
    assert.equal(given.classification_source, 'import');
    assert.equal(given.classification_confidence, null);
    assert.deepEqual(given.classification_evidence, []);
    // Re-imported without a classification, a field given one by an import keeps it.
    await importOk(t.app, admin, source, [{ table_name: 'given', field_name: 'created_at', data_type: 'timestamp' }]);
    assert.equal(
      (await getField(t.app, admin, field_ids[0]!)).classification_chain_path,
      'Personal/Contact/Email address',
    );
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${field_ids[0]}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: 'Technical/Timestamp' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const confirmed = await getField(t.app, admin, field_ids[0]!);
    assert.equal(confirmed.classification_source, 'reviewer');
    assert.equal(confirmed.classification_confidence, null);
  });

  it('learns from confirmations: a new field like a confirmed one gets the confirmed tag, with that evidence', async () => {
    const { field_ids } = await importOk(t.app, admin, source, [
      { table_name: 'legacy_a', field_name: 'zq_kto_nr', data_type: 'varchar(20)' },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${field_ids[0]}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: 'Financial/Bank account number', lock_level: 'L4' },
    });
    assert.equal(res.statusCode, 200, res.body);
    // The replica of the catalog (which finds the nearest confirmed fields) follows the change.
    await t.app.services.metricsWorker.drain();
    const again = await importOk(t.app, admin, source, [
      { table_name: 'legacy_b', field_name: 'zq_kto_nr', data_type: 'varchar(20)' },
    ]);
    const learned = await getField(t.app, admin, again.field_ids[0]!);
    assert.equal(learned.classification_chain_path, 'Financial/Bank account number');
    assert.ok(
      learned.classification_evidence.some((e) => e.factor === 'confirmed_fields'),
      JSON.stringify(learned.classification_evidence),
    );
  });
});

describeEachDatabase('re-evaluation when the taxonomy changes', (kind) => {
  let t: TestApp;
  after(async () => t.close());

  it('classifies again, in the background, the fields the classifier chose; confirmed and import-given ones stay', async () => {
    t = await buildTestApp(kind);
    const admin = await adminToken(t.app);
    const source = await createDatasource(t.app, admin);
    const { field_ids } = await importOk(t.app, admin, source, [
      { table_name: 'members', field_name: 'loyalty_points_balance', data_type: 'integer' },
      { table_name: 'members_copy', field_name: 'loyalty_points_balance', data_type: 'integer' },
      {
        table_name: 'members_given',
        field_name: 'loyalty_points_balance',
        data_type: 'integer',
        classification_chain_path: 'Technical/Record ID',
      },
    ]);
    const [auto, confirmedId, given] = field_ids as [string, string, string];
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${confirmedId}/confirm`,
      headers: bearer(admin),
      payload: {},
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
    const before = await Promise.all([auto, confirmedId, given].map((id) => getField(t.app, admin, id)));

    // The organisation adds a tag that fits these columns better than anything before.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classification/tags',
      headers: bearer(admin),
      payload: {
        name: 'Loyalty points balance',
        default_level: 'L3',
        keywords: ['loyalty points balance', 'loyalty points', 'points balance'],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const tagId = json<{ id: number }>(created).id;
    await t.app.services.reclassifyWorker.drain();

    const after = await Promise.all([auto, confirmedId, given].map((id) => getField(t.app, admin, id)));
    assert.equal(after[0]!.classification_tag_id, tagId, JSON.stringify(after[0]!.classification_evidence));
    assert.equal(after[0]!.classification_source, 'classifier');
    assert.equal(after[0]!.review_status, 'unreviewed');
    assert.equal(
      after[1]!.classification_tag_id,
      before[1]!.classification_tag_id,
      'a confirmed field is never re-classified',
    );
    assert.equal(
      after[2]!.classification_tag_id,
      before[2]!.classification_tag_id,
      'an import-given classification is never re-classified',
    );
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', '=', 'fields.reclassified')
      .execute();
    assert.equal(audit.length, 1);
    assert.equal(JSON.parse(audit[0]!.details).changed, 1);
    // Done once: a second round finds nothing to do.
    await t.app.services.reclassifyWorker.drain();
    assert.equal(
      (await t.database.db.selectFrom('audit_log').select('seq').where('action', '=', 'fields.reclassified').execute())
        .length,
      1,
    );
  });
});

describeEachDatabase('re-evaluation when the embedder changes', (kind) => {
  let t: TestApp;
  after(async () => t.close());

  it('embeds again, in the background, every field another embedder embedded, from what an import embeds', async () => {
    t = await buildTestApp(kind);
    const admin = await adminToken(t.app);
    const source = await createDatasource(t.app, admin);
    const { field_ids } = await importOk(t.app, admin, source, [
      { table_name: 'customers', field_name: 'email_address', data_type: 'text', sample_values: ['a@example.org'] },
      {
        table_name: 'customers',
        field_name: 'birth_date',
        data_type: 'date',
        classification_chain_path: 'Personal/Identity/Date of birth',
      },
      { table_name: 'orders', field_name: 'total_amount', data_type: 'numeric' },
    ]);
    const [email, birth, total] = field_ids as [string, string, string];
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${birth}/confirm`,
      headers: bearer(admin),
      payload: {},
    });
    assert.equal(confirm.statusCode, 200, confirm.body);
    const stored = async () =>
      new Map(
        (
          await t.database.db
            .selectFrom('fields')
            .select(['id', 'embedding', 'embedder_version', 'updated_at', 'review_status'])
            .execute()
        ).map((r) => [r.id, r]),
      );
    const current = await stored();
    const { embedder } = t.app.services;

    // An upgrade from another embedder: its vectors (of another length here) and its version on every field, and the
    // classifier's views made with the version key that included it.
    const foreign = encodeVector(Float32Array.from({ length: 16 }, (_, i) => (i % 3) - 1));
    await t.database.db
      .updateTable('fields')
      .set({ embedding: foreign, embedder_version: 'another-embedder-v1', predicted_with: 'another-key' })
      .execute();
    await t.database.db
      .updateTable('fields')
      .set({ embedding: null, embedder_version: null })
      .where('id', '=', total)
      .execute();
    await t.database.db.deleteFrom('settings').where('key', '=', 'classifier.reclassify_enqueued_for').execute();
    await t.app.services.reclassifyWorker.drain();

    const after = await stored();
    for (const id of [email, birth, total]) {
      const row = after.get(id)!;
      assert.equal(row.embedder_version, embedder.version, `field ${id} carries the current embedder's version`);
      assert.deepEqual(
        decodeVector(row.embedding as Uint8Array),
        decodeVector(current.get(id)!.embedding as Uint8Array),
        'the same vector an import made',
      );
      assert.equal(row.updated_at, current.get(id)!.updated_at, 'a new embedding is not a change a reviewer sees');
      assert.equal(row.review_status, current.get(id)!.review_status);
    }
    // The change log carries the new embeddings: the metrics of every field are recomputed.
    const changes = await t.database.db
      .selectFrom('catalog_changes')
      .select('field_id')
      .where('field_id', 'in', [email, birth, total])
      .execute();
    assert.ok(new Set(changes.map((c) => c.field_id)).size === 3);
    // Done once: nothing left for another round.
    await t.app.services.reclassifyWorker.drain();
    assert.equal((await stored()).get(email)!.embedder_version, embedder.version);
  });
});

describeEachDatabase('the label gap: how many classifier points the label trails its answer by', (kind) => {
  let t: TestApp;
  let admin: string;
  let source: string;
  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    source = await createDatasource(t.app, admin);
  });
  after(async () => t.close());

  const gapOf = async (id: string): Promise<number | null> =>
    (
      await t.database.db
        .selectFrom('fields')
        .select('predicted_label_gap')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).predicted_label_gap;
  const queued = async (id: string): Promise<boolean> =>
    (await t.database.db.selectFrom('reclassify_queue').select('field_id').where('field_id', '=', id).execute())
      .length === 1;
  /** Imports one field with a given label and answers its id and the gap measured at import (known, above 0). */
  const importMeasured = async (row: {
    table_name: string;
    field_name: string;
    data_type: string;
    classification_chain_path: string;
  }): Promise<{ id: string; measured: number }> => {
    const { field_ids } = await importOk(t.app, admin, source, [row]);
    const id = field_ids[0]!;
    const measured = await gapOf(id);
    assert.ok(measured !== null && measured > 0, `gap ${measured}`);
    return { id, measured };
  };
  const changeCount = async (id: string): Promise<number> =>
    Number(
      (
        await t.database.db
          .selectFrom('catalog_changes')
          .select((s) => s.fn.countAll<number>().as('n'))
          .where('field_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('is stored with the view at import: 0 for the label the classifier names, more for one it reads less', async () => {
    const { field_ids } = await importOk(t.app, admin, source, [
      {
        table_name: 'customers',
        field_name: 'email',
        data_type: 'varchar(200)',
        classification_chain_path: 'Personal/Contact/Email address',
      },
      {
        table_name: 'customers',
        field_name: 'email_address',
        data_type: 'varchar(200)',
        classification_chain_path: 'Personal/Identity/Date of birth',
      },
      { table_name: 'customers', field_name: 'contact_email', data_type: 'varchar(200)' },
    ]);
    const [agrees, wrong, auto] = field_ids as [string, string, string];
    assert.equal(await gapOf(agrees), 0);
    assert.ok(((await gapOf(wrong)) ?? 0) > 1, `gap ${await gapOf(wrong)}`);
    assert.equal(await gapOf(auto), 0, 'a field the classifier labelled trails its own answer by nothing');
    assert.ok(!(await queued(wrong)), 'a known gap needs no re-measuring');
  });

  it('a write that keeps or sets another label makes it unknown and queues it; the worker measures it again', async () => {
    const { id, measured } = await importMeasured({
      table_name: 'people',
      field_name: 'phone',
      data_type: 'varchar(40)',
      classification_chain_path: 'Technical/Timestamp',
    });
    // Re-imported with no classification: the import's label is kept, and the gap of the classifier's own label does
    // not apply to it.
    await importOk(t.app, admin, source, [{ table_name: 'people', field_name: 'phone', data_type: 'varchar(40)' }]);
    assert.equal((await getField(t.app, admin, id)).classification_chain_path, 'Technical/Timestamp');
    assert.equal(await gapOf(id), null);
    assert.ok(await queued(id));
    await t.app.services.reclassifyWorker.drain();
    assert.equal(await gapOf(id), measured);
    assert.ok(!(await queued(id)));
    // A reviewer corrects the label: the gap was the old label's.
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${id}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: 'Personal/Contact/Phone number' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await gapOf(id), null);
    assert.ok(await queued(id));
    await t.app.services.reclassifyWorker.drain();
    assert.equal(await gapOf(id), 0, 'the classifier names the corrected label');
    // Confirmed as it is: the label does not change, nor does its gap.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${id}/confirm`,
      headers: bearer(admin),
      payload: {},
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(await gapOf(id), 0);
    assert.ok(!(await queued(id)));
  });

  it('a field from before the gap existed is measured by the upgrade path, and the change log tells the metrics', async () => {
    const { id, measured } = await importMeasured({
      table_name: 'patients',
      field_name: 'birth_date',
      data_type: 'date',
      classification_chain_path: 'Technical/Record ID',
    });
    await t.database.db.updateTable('fields').set({ predicted_label_gap: null }).where('id', '=', id).execute();
    // What migration 0028 does: the worker forgets it queued this version, so its next round queues the outdated views.
    await t.database.db.deleteFrom('settings').where('key', '=', 'classifier.reclassify_enqueued_for').execute();
    const changesBefore = await changeCount(id);
    await t.app.services.reclassifyWorker.drain();
    assert.equal(await gapOf(id), measured);
    const changesAfter = await changeCount(id);
    assert.ok(changesAfter > changesBefore, 'the gap is in the change-log trigger');
  });
});
