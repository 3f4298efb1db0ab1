import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, manyFields, type FieldInput } from '../fields/factories.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';

const AXES = ['category_anchor', 'centroid', 'peer_mean', 'nearest', 'lower_quartile', 'farthest'];
const EMAIL = 'Personal/Contact/Email address';
const TIMESTAMP = 'Technical/Timestamp';

interface Item {
  field_id: string;
  scores: Record<string, number>;
  raw_scores: Record<string, number>;
  category_similarity: number;
  centroid_similarity: number;
  mean_similarity: number;
  outlier_score: number;
  severity: string;
  nearest_field_id: string | null;
  nearest_field_name: string | null;
  reason: string;
}
interface Minibars {
  items: Item[];
  baseline_scores: Record<string, number>;
  field_count: number;
  missing_field_ids: string[];
}

/** A small catalog: emails and timestamps, correctly tagged, plus `crm.contact.email` tagged as a timestamp. */
function smallCatalog(): FieldInput[] {
  const emails = [
    'email',
    'email_address',
    'contact_email',
    'user_email',
    'billing_email',
    'emailAddr',
    'work_email',
    'customer_email',
  ];
  const times = [
    'created_at',
    'updated_at',
    'deleted_at',
    'modified_at',
    'inserted_at',
    'last_login_at',
    'createdTimestamp',
    'processed_at',
  ];
  return [
    ...emails.map((f, i) => ({
      table_name: `users_${i % 3}`,
      field_name: f,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
    })),
    ...times.map((f, i) => ({
      table_name: `events_${i % 3}`,
      field_name: f,
      data_type: 'timestamp',
      classification_chain_path: TIMESTAMP,
    })),
    {
      table_name: 'crm_contact',
      field_name: 'email',
      data_type: 'varchar',
      comment: 'e-mail address of the contact',
      classification_chain_path: TIMESTAMP,
    },
  ];
}

async function minibars(app: FastifyInstance, token: string, ids: string[]) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/classify/fields/embedding-minibars',
    headers: bearer(token),
    payload: { field_ids: ids },
  });
}

async function status(
  app: FastifyInstance,
  token: string,
): Promise<{ pending: number; fields: number; last_updated_at: string | null }> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/classify/metrics/status', headers: bearer(token) });
  assert.equal(res.statusCode, 200);
  return json(res);
}

function assertItem(item: Item, listLength: number): void {
  for (const key of ['category_similarity', 'centroid_similarity', 'mean_similarity', 'outlier_score'] as const) {
    assert.equal(typeof item[key], 'number', key);
    assert.ok(Number.isFinite(item[key]), key);
  }
  assert.deepEqual(Object.keys(item.scores).sort(), [...AXES].sort());
  assert.deepEqual(Object.keys(item.raw_scores).sort(), [...AXES].sort());
  for (const k of AXES) {
    assert.ok(item.scores[k]! >= 0 && item.scores[k]! <= 1, `score ${k}=${item.scores[k]}`);
    assert.ok(item.raw_scores[k]! >= 0 && item.raw_scores[k]! <= 2, `raw ${k}=${item.raw_scores[k]}`);
  }
  assert.ok(item.outlier_score >= 0 && item.outlier_score <= 1);
  assert.ok(item.category_similarity >= -1 && item.category_similarity <= 1);
  assert.ok(['low', 'medium', 'high'].includes(item.severity));
  assert.ok(item.reason.length > 10);
  if (listLength === 1) assert.equal(item.mean_similarity, 1);
  assert.equal(typeof item.nearest_field_id, 'string');
  assert.equal(typeof item.nearest_field_name, 'string');
}

/** Deep equality, numbers within 1e-6. */
function assertClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    assert.ok(Math.abs(actual - expected) < 1e-6, `${path}: ${actual} vs ${expected}`);
  } else if (actual !== null && expected !== null && typeof actual === 'object' && typeof expected === 'object') {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    assert.deepEqual(Object.keys(a).sort(), Object.keys(e).sort(), path);
    for (const k of Object.keys(e)) assertClose(a[k], e[k], `${path}.${k}`);
  } else {
    assert.equal(actual, expected, path);
  }
}

describeEachDatabase('embedding-minibars', (kind) => {
  let t: TestApp;
  let admin: string;
  let observer: string;
  let source: string;
  let ids: string[];

  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    observer = (await createUser(t.app, ['observer'])).token;
    source = await createDatasource(t.app, admin);
    ids = (await importOk(t.app, admin, source, smallCatalog())).field_ids;
    await t.app.services.metricsWorker.drain();
  });
  after(async () => t.close());

  it('answers every field of the spec with finite values for lists of 1 and 2', async () => {
    for (const list of [[ids[0]!], [ids[0]!, ids[9]!]]) {
      const res = await minibars(t.app, observer, list);
      assert.equal(res.statusCode, 200, res.body);
      const body = json<Minibars>(res);
      assert.equal(body.field_count, list.length);
      assert.deepEqual(body.missing_field_ids, []);
      assert.deepEqual(
        body.items.map((i) => i.field_id),
        list,
      );
      for (const item of body.items) assertItem(item, list.length);
      assert.deepEqual(Object.keys(body.baseline_scores).sort(), [...AXES].sort());
      for (const k of AXES) {
        const mean = body.items.reduce((s, i) => s + i.scores[k]!, 0) / body.items.length;
        // The mean of the answered (rounded) scores, itself rounded to 3 decimals.
        assert.ok(Math.abs(body.baseline_scores[k]! - mean) <= 0.0005 + 1e-9);
      }
    }
  });

  it('answers duplicates once and lists unknown ids as missing', async () => {
    const unknown = '00000000-0000-4000-8000-000000000001';
    const res = await minibars(t.app, admin, [ids[1]!, ids[1]!, unknown, ids[2]!]);
    assert.equal(res.statusCode, 200);
    const body = json<Minibars>(res);
    assert.deepEqual(
      body.items.map((i) => i.field_id),
      [ids[1], ids[2]],
    );
    assert.equal(body.field_count, 2);
    assert.deepEqual(body.missing_field_ids, [unknown]);
  });

  it('refuses 0 and 501 ids, non-uuids, and callers without a token', async () => {
    assert.equal(problem(await minibars(t.app, admin, [])).status, 400);
    const many = Array.from({ length: 501 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    assert.equal(problem(await minibars(t.app, admin, many)).status, 400);
    assert.equal(problem(await minibars(t.app, admin, ['not-a-uuid'])).status, 400);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classify/fields/embedding-minibars',
      payload: { field_ids: [ids[0]] },
    });
    assert.equal(problem(res).status, 401);
    assert.equal(problem(await t.app.inject({ method: 'GET', url: '/api/v1/classify/metrics/status' })).status, 401);
  });

  it('ranks a misclassified field high and names its nearest neighbour', async () => {
    const wrong = ids[ids.length - 1]!;
    const body = json<Minibars>(await minibars(t.app, admin, ids));
    const item = body.items.find((i) => i.field_id === wrong)!;
    assert.equal(item.severity, 'high', item.reason);
    const top = [...body.items].sort((a, b) => b.outlier_score - a.outlier_score)[0]!;
    assert.equal(top.field_id, wrong);
    assert.ok(item.nearest_field_name !== null && item.reason.includes(item.nearest_field_name), item.reason);
    assert.match(item.reason, /Email address/);
    const good = body.items.find((i) => i.field_id === ids[0])!;
    assert.equal(good.severity, 'low', good.reason);
    // The review queue sorts on the copy kept on each field row: it must match the stored metrics exactly.
    const rows = await t.database.db
      .selectFrom('fields')
      .innerJoin('field_metrics as m', 'm.field_id', 'fields.id')
      .select([
        'fields.id',
        'fields.outlier_score',
        'fields.severity',
        'm.outlier_score as m_score',
        'm.severity as m_severity',
      ])
      .where('fields.id', 'in', ids)
      .execute();
    assert.equal(rows.length, ids.length);
    // fields.outlier_score is a 4-byte float (an index key for sorting), field_metrics keeps 8 bytes on PostgreSQL.
    for (const r of rows) {
      assert.equal(r.severity, r.m_severity, r.id);
      assert.ok(Math.abs(Number(r.outlier_score) - r.m_score) < 1e-6, r.id);
    }
    const copied = rows.find((r) => r.id === wrong)!;
    assert.equal(copied.severity, 'high');
    // The answer rounds to 3 decimals.
    assert.ok(Math.abs(Number(copied.outlier_score) - item.outlier_score) <= 0.0005 + 1e-6);
  });

  it('answers 500 ids, computing fields not computed yet on the spot', async () => {
    const more = (await importOk(t.app, admin, source, manyFields(495, 'bulk'))).field_ids;
    const list = [...ids.slice(0, 5), ...more];
    assert.equal(list.length, 500);
    const res = await minibars(t.app, admin, list);
    assert.equal(res.statusCode, 200);
    const body = json<Minibars>(res);
    assert.equal(body.field_count, 500);
    for (const item of body.items) assertItem(item, 500);
    // Scores with 3 decimals (a minibar needs no more), and compressed on the wire when the client accepts it.
    assert.doesNotMatch(res.body, /\d\.\d{4,}/);
    for (const encoding of ['gzip', 'br']) {
      const packed = await t.app.inject({
        method: 'POST',
        url: '/api/v1/classify/fields/embedding-minibars',
        headers: { ...bearer(admin), 'accept-encoding': encoding },
        payload: { field_ids: list },
      });
      assert.equal(packed.statusCode, 200);
      assert.equal(packed.headers['content-encoding'], encoding);
      assert.ok(packed.rawPayload.length <= 100 * 1024, `${encoding}: ${packed.rawPayload.length} bytes`);
      const text = (
        encoding === 'gzip' ? gunzipSync(packed.rawPayload) : brotliDecompressSync(packed.rawPayload)
      ).toString('utf8');
      assert.deepEqual(JSON.parse(text).field_count, 500);
    }
    await t.app.services.metricsWorker.drain();
    assert.equal((await status(t.app, observer)).pending, 0);
  });

  it('follows a confirm and an import: pending rises, drains to 0, values change', async () => {
    const wrong = ids[ids.length - 1]!;
    const before = json<Minibars>(await minibars(t.app, admin, [wrong])).items[0]!;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${wrong}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: EMAIL },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok((await status(t.app, admin)).pending >= 1);
    await t.app.services.metricsWorker.drain();
    const s = await status(t.app, admin);
    assert.equal(s.pending, 0);
    assert.ok(s.fields >= 17 && s.last_updated_at !== null);
    const afterConfirm = json<Minibars>(await minibars(t.app, admin, [wrong])).items[0]!;
    assert.ok(
      afterConfirm.outlier_score < before.outlier_score,
      `${afterConfirm.outlier_score} < ${before.outlier_score}`,
    );
    assert.equal(afterConfirm.severity, 'low', afterConfirm.reason);

    // Re-importing a field under another tag makes it suspicious again.
    const moved = await importOk(t.app, admin, source, [
      { table_name: 'users_0', field_name: 'email', data_type: 'varchar', classification_chain_path: TIMESTAMP },
    ]);
    assert.equal(moved.field_ids[0], ids[0]);
    assert.ok((await status(t.app, admin)).pending >= 1);
    await t.app.services.metricsWorker.drain();
    const movedItem = json<Minibars>(await minibars(t.app, admin, [ids[0]!])).items[0]!;
    assert.ok(movedItem.outlier_score > 0.5, movedItem.reason);
  });

  it('drops fields of a deleted data source', async () => {
    const other = await createDatasource(t.app, admin);
    // The same column in another source: the nearest field of its twin.
    const gone = (
      await importOk(t.app, admin, other, [
        { table_name: 'users_0', field_name: 'email', data_type: 'varchar', classification_chain_path: EMAIL },
      ])
    ).field_ids[0]!;
    await t.app.services.metricsWorker.drain();
    const namers = json<Minibars>(await minibars(t.app, admin, ids)).items.filter((i) => i.nearest_field_id === gone);
    assert.ok(namers.length > 0);
    assert.ok(namers.every((i) => i.nearest_field_name === 'users_0.email'));
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${other}`, headers: bearer(admin) });
    assert.equal(del.statusCode, 204);
    const body = json<Minibars>(await minibars(t.app, admin, [gone, ...namers.map((i) => i.field_id)]));
    assert.deepEqual(body.missing_field_ids, [gone]);
    // At once (before or after the worker recomputes them), the fields that named it name no deleted field.
    assert.equal(body.items.length, namers.length);
    for (const i of body.items) {
      assert.notEqual(i.nearest_field_id, gone);
      assert.equal(i.nearest_field_id === null, i.nearest_field_name === null);
    }
    await t.app.services.metricsWorker.drain();
    // No stored metric names a deleted field as its nearest neighbour once recomputed.
    const all = json<Minibars>(await minibars(t.app, admin, ids));
    assert.ok(all.items.every((i) => i.nearest_field_id !== gone));
  });

  it('survives the death of an index thread: a confirm still succeeds, and the next round rebuilds the index', async () => {
    const worker = t.app.services.metricsWorker;
    await worker.drain();
    // Fault injection: the thread holding the nearest-neighbour index dies (as it would out of memory).
    type Index = { failure: Error | null; size: number; shards: Array<{ worker: { terminate(): Promise<number> } }> };
    const replica = (worker as unknown as { deps: { replica: { current: { index: Index } } } }).deps.replica;
    const index = replica.current.index;
    await index.shards[0]?.worker.terminate();
    assert.ok(index.failure instanceof Error);

    const field = ids[2]!;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${field}/confirm`,
      headers: bearer(admin),
      payload: {},
    });
    assert.equal(res.statusCode, 200, res.body);
    await worker.drain();
    assert.equal((await status(t.app, admin)).pending, 0);
    const rebuilt = replica.current.index;
    assert.notEqual(rebuilt, index);
    assert.equal(rebuilt.failure, null);
    const item = json<Minibars>(await minibars(t.app, admin, [field])).items[0]!;
    assert.ok(item.nearest_field_name !== null, item.reason);
  });
});

describeEachDatabase('embedding-minibars order of computation', (kind) => {
  let t: TestApp;
  after(async () => t?.close());

  it('stores the same metrics for a field computed first, on its own, as when the whole catalog is computed together', async () => {
    t = await buildTestApp(kind);
    // No background worker: the two fields below must be the first ones computed.
    await t.app.services.metricsWorker.stop();
    const admin = await adminToken(t.app);
    const source = await createDatasource(t.app, admin);
    // More than 20 fields, so that the margin scales come from the catalog too.
    const catalog = [...smallCatalog(), ...manyFields(12, 'order')];
    const ids = (await importOk(t.app, admin, source, catalog)).field_ids;
    assert.equal((await status(t.app, admin)).pending, catalog.length);
    const wrong = ids[smallCatalog().length - 1]!;
    const early = [wrong, ids[0]!];
    // Not computed yet: minibars computes these two on the spot, before any other field of the catalog.
    const first = json<Minibars>(await minibars(t.app, admin, early)).items;
    const stored = await t.database.db.selectFrom('field_metrics').select('field_id').execute();
    assert.deepEqual(stored.map((r) => r.field_id).sort(), [...early].sort());
    await t.app.services.metricsWorker.drain();
    // Re-importing the unchanged catalog marks every field stale; they are now recomputed together, in one batch.
    await importOk(t.app, admin, source, catalog);
    assert.equal((await status(t.app, admin)).pending, catalog.length);
    await t.app.services.metricsWorker.drain();
    const together = json<Minibars>(await minibars(t.app, admin, early)).items;
    // Equal up to float32 rounding (re-importing detaches and re-attaches each vector from the running sums).
    assertClose(together, first);
    // …and they are not trivially equal: the catalog's percentiles spread the two fields apart.
    assert.ok(first[0]!.scores.peer_mean! < first[1]!.scores.peer_mean!, JSON.stringify(first.map((i) => i.scores)));
    assert.equal(first[0]!.severity, 'high', first[0]!.reason);
  });
});

describeEachDatabase('embedding-minibars license feature', (kind) => {
  const vendor = keyPair();
  let t: TestApp;
  after(async () => t.close());

  it('answers 403 feature_disabled when the license switches embedding_metrics off', async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
    const admin = await adminToken(t.app);
    const source = await createDatasource(t.app, admin);
    const ids = (await importOk(t.app, admin, source, manyFields(3))).field_ids;
    const imported = await importLicense(
      t.app,
      admin,
      issueLicense(vendor, t.clock.now(), { sku_tier: 'lite', features: { embedding_metrics: false } }),
    );
    assert.equal(imported.statusCode, 200, imported.body);
    const res = await minibars(t.app, admin, ids);
    const p = problem(res);
    assert.equal(p.status, 403);
    assert.equal(p.code, 'feature_disabled');
  });
});

describeEachDatabase('embedding-minibars across instances', (kind) => {
  let a: TestApp;
  let b: TestApp;
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('a confirm on one instance shows in the minibars of another once the background workers settle', async () => {
    a = await buildTestApp(kind, { workers: true });
    b = await buildTestApp(kind, { testDatabase: a.testDatabase, workers: true });
    const admin = await adminToken(a.app);
    const source = await createDatasource(a.app, admin);
    const ids = (await importOk(a.app, admin, source, smallCatalog())).field_ids;
    const wrong = ids[ids.length - 1]!;
    // B has never seen these fields: it computes them on the spot from the database.
    const first = json<Minibars>(await minibars(b.app, admin, [wrong])).items[0]!;
    await a.app.services.metricsWorker.drain();
    const before = json<Minibars>(await minibars(b.app, admin, [wrong])).items[0]!;
    assert.ok(first.outlier_score > 0.5 && before.outlier_score > 0.5);
    const res = await a.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${wrong}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: EMAIL },
    });
    assert.equal(res.statusCode, 200);
    // No drain: the instances' own background workers must get there (each round takes a second at most).
    await b.app.services.metricsWorker.settled();
    const now = json<Minibars>(await minibars(b.app, admin, [wrong])).items[0]!;
    assert.ok(now.outlier_score < 0.4, `still ${now.outlier_score}: ${now.reason}`);
  });

  it('an instance that has not loaded its catalog yet answers the same, from the database', async () => {
    const admin = await adminToken(a.app);
    const ids = (await a.database.db.selectFrom('fields').select('id').orderBy('id').execute()).map((r) => r.id);
    await a.app.services.metricsWorker.drain();
    const loaded = json<Minibars>(await minibars(a.app, admin, ids));
    // A fresh instance whose worker has not run: minibars must not wait for the catalog to load (minutes at 1M fields).
    const fresh = await buildTestApp(kind, { testDatabase: a.testDatabase });
    try {
      await fresh.app.services.metricsWorker.stop();
      const early = json<Minibars>(await minibars(fresh.app, admin, ids));
      assert.equal(fresh.app.services.metrics.catalogLoaded, false);
      assert.equal(early.items.length, ids.length);
      for (const [i, item] of early.items.entries()) {
        const other = loaded.items[i]!;
        assert.equal(item.field_id, other.field_id);
        assert.ok(
          Math.abs(item.mean_similarity - other.mean_similarity) < 1e-5,
          `${item.mean_similarity} vs ${other.mean_similarity}`,
        );
        assert.equal(item.outlier_score, other.outlier_score);
      }
    } finally {
      await fresh.close();
    }
  });
});

describeEachDatabase('embedding-minibars: a level its tag rarely has', (kind) => {
  let t: TestApp;
  let admin: string;
  let usual: string[];
  let rare: string;
  const tagBars = ['category_anchor', 'peer_mean', 'lower_quartile', 'farthest'];

  before(async () => {
    t = await buildTestApp(kind);
    admin = await adminToken(t.app);
    const source = await createDatasource(t.app, admin);
    const names = ['email', 'email_address', 'contact_email', 'user_email', 'billing_email', 'work_email'];
    const fields: FieldInput[] = [...names, ...names.map((n) => `${n}_2`)].map((field_name, i) => ({
      table_name: `people_${i % 4}`,
      field_name,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
      level: 'L3',
    }));
    fields.push({
      table_name: 'newsletter',
      field_name: 'subscriber_email',
      data_type: 'varchar',
      classification_chain_path: EMAIL,
      level: 'L1',
    });
    const ids = (await importOk(t.app, admin, source, fields)).field_ids;
    usual = ids.slice(0, -1);
    rare = ids[ids.length - 1]!;
    await t.app.services.metricsWorker.drain();
  });
  after(async () => t.close());

  it("scales the four tag bars down by how rare the level is, says so, and a reviewer's confirmation of that level lifts it", async () => {
    const read = async () => {
      const body = json<Minibars>(await minibars(t.app, admin, [rare, usual[0]!]));
      return body.items as Array<Item & { unusual_level: unknown }>;
    };
    const [atRare, atUsual] = await read();
    assert.deepEqual(atRare!.unusual_level, { level: 'L1', peers_at_level: 0, peers: 12, usual_level: 'L3' });
    assert.equal(atUsual!.unusual_level, null);
    for (const k of tagBars) {
      // (0 + LEVEL_PRIOR) / (12 + LEVEL_PRIOR) of the tag's own fit at most.
      assert.ok(atRare!.scores[k]! <= 2 / 14 + 1e-3, `${k} ${atRare!.scores[k]}`);
      assert.ok(
        atUsual!.scores[k]! > atRare!.scores[k]!,
        `${k}: usual ${atUsual!.scores[k]} > rare ${atRare!.scores[k]}`,
      );
    }

    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${rare}/confirm`,
      headers: bearer(admin),
      payload: { classification_chain_path: EMAIL, lock_level: 'L1' },
    });
    assert.equal(res.statusCode, 200, res.body);
    await t.app.services.metricsWorker.drain();
    const [confirmed] = await read();
    assert.equal(confirmed!.unusual_level, null);
    for (const k of tagBars)
      assert.ok(confirmed!.scores[k]! > atRare!.scores[k]!, `${k}: ${confirmed!.scores[k]} > ${atRare!.scores[k]}`);
  });
});
