import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createDatasource, importOk, type FieldInput } from '../fields/factories.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';

const EMAIL = 'Personal/Contact/Email address';
const TIMESTAMP = 'Technical/Timestamp';

interface Item {
  field_id: string;
  nearest_field_id: string | null;
  nearest_field_name: string | null;
  reason: string;
}

/** Emails and timestamps in tables named after `prefix`, so a reason citing them is recognisable. */
function catalog(prefix: string): FieldInput[] {
  const emails = ['email', 'email_address', 'contact_email', 'user_email', 'billing_email', 'work_email'];
  const times = ['created_at', 'updated_at', 'deleted_at', 'modified_at', 'inserted_at', 'processed_at'];
  return [
    ...emails.map((f, i) => ({
      table_name: `${prefix}_users_${i % 2}`,
      field_name: f,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
    })),
    ...times.map((f, i) => ({
      table_name: `${prefix}_events_${i % 2}`,
      field_name: f,
      data_type: 'timestamp',
      classification_chain_path: TIMESTAMP,
    })),
  ];
}

async function items(app: FastifyInstance, token: string, ids: string[]): Promise<Item[]> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/classify/fields/embedding-minibars',
    headers: bearer(token),
    payload: { field_ids: ids },
  });
  assert.equal(res.statusCode, 200, res.body);
  return json<{ items: Item[] }>(res).items;
}

async function pending(app: FastifyInstance, token: string): Promise<number> {
  const res = await app.inject({ method: 'GET', url: '/api/v1/classify/metrics/status', headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return json<{ pending: number }>(res).pending;
}

/** Every item names only live fields: no deleted id, no deleted table in the nearest name or the reason. */
function assertNoneNames(list: readonly Item[], goneIds: ReadonlySet<string>, goneTable: RegExp): void {
  for (const item of list) {
    assert.ok(
      item.nearest_field_id === null || !goneIds.has(item.nearest_field_id),
      `${item.field_id} names deleted ${item.nearest_field_id}`,
    );
    assert.doesNotMatch(item.nearest_field_name ?? '', goneTable);
    assert.doesNotMatch(item.reason, goneTable);
  }
}

describeEachDatabase('staleness from the change log', (kind) => {
  let t: TestApp | undefined;
  after(async () => t?.close());

  it("deleting a data source whose fields were others' nearest neighbours makes them pending, and their metrics then name no deleted field, across a restart", async () => {
    t = await buildTestApp(kind);
    const admin = await adminToken(t.app);
    const kept = (await importOk(t.app, admin, await createDatasource(t.app, admin), catalog('kept'))).field_ids;
    const goneSource = await createDatasource(t.app, admin);
    const gone = new Set((await importOk(t.app, admin, goneSource, catalog('gone'))).field_ids);
    await t.app.services.metricsWorker.drain();
    assert.equal(await pending(t.app, admin), 0);
    const before = await items(t.app, admin, kept);
    assert.ok(
      before.some((i) => i.nearest_field_id !== null && gone.has(i.nearest_field_id)),
      'precondition: some kept fields have a field of the deleted source as nearest neighbour',
    );

    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/datasources/${goneSource}`,
      headers: bearer(admin),
    });
    assert.equal(res.statusCode, 204, res.body);
    // Committed, not yet recomputed: pending says so at once (no worker has run).
    assert.ok((await pending(t.app, admin)) > 0);

    // A restart before any recomputation loses nothing: the change log is in the database.
    const testDatabase = t.testDatabase;
    await t.app.close();
    await t.database.close();
    t = await buildTestApp(kind, { testDatabase });
    const token = await adminToken(t.app);
    assert.ok((await pending(t.app, token)) > 0);
    await t.app.services.metricsWorker.drain();
    assert.equal(await pending(t.app, token), 0);
    assertNoneNames(await items(t.app, token, kept), gone, /gone_/);
  });

  it('a review makes the reviewed field pending through the change log, not through the reviewer', async () => {
    const admin = await adminToken(t!.app);
    const ids = (await importOk(t!.app, admin, await createDatasource(t!.app, admin), catalog('review'))).field_ids;
    await t!.app.services.metricsWorker.drain();
    assert.equal(await pending(t!.app, admin), 0);
    const res = await t!.app.inject({
      method: 'POST',
      url: `/api/v1/classify/fields/${ids[0]}/confirm`,
      headers: bearer(admin),
      payload: {},
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok((await pending(t!.app, admin)) >= 1);
    await t!.app.services.metricsWorker.drain();
    assert.equal(await pending(t!.app, admin), 0);
  });
});

describeEachDatabase('staleness of a bulk load', (kind) => {
  let t: TestApp | undefined;
  after(async () => t?.close());

  it('a load larger than a fifth of the catalog enqueues the whole catalog at once, and every field gets its metrics', async () => {
    t = await buildTestApp(kind);
    const admin = await adminToken(t.app);
    const bulk: FieldInput[] = Array.from({ length: 2100 }, (_, i) => ({
      table_name: `bulk_${i % 30}`,
      field_name: `c_${i}`,
      data_type: 'text',
      classification_chain_path: TIMESTAMP,
    }));
    await importOk(t.app, admin, await createDatasource(t.app, admin), bulk);
    assert.equal(await pending(t.app, admin), bulk.length);
    await t.app.services.metricsWorker.drain();
    assert.equal(await pending(t.app, admin), 0);
    const computed = await t.database.db
      .selectFrom('field_metrics')
      .select((s) => s.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(computed.n), bulk.length);
  });
});

describeEachDatabase('staleness after the sample data is removed', (kind) => {
  const vendor = keyPair();
  let t: TestApp | undefined;
  after(async () => t?.close());

  it('importing a paid license removes the sample fields; the remaining fields are recomputed and name none of them', async () => {
    t = await buildTestApp(kind, {
      env: { FIELDLENS_SAMPLE_DATA: 'on', FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem },
    });
    const admin = await adminToken(t.app);
    const sampleIds = new Set((await t.database.db.selectFrom('fields').select('id').execute()).map((r) => r.id));
    assert.ok(sampleIds.size > 100, 'the sample catalog is loaded');
    const own = (await importOk(t.app, admin, await createDatasource(t.app, admin), catalog('own'))).field_ids;
    await t.app.services.metricsWorker.drain();
    const before = await items(t.app, admin, own);
    assert.ok(
      before.some((i) => i.nearest_field_id !== null && sampleIds.has(i.nearest_field_id)),
      'precondition: own fields have sample neighbours',
    );
    const sampleTables = new Set(
      (
        await t.database.db
          .selectFrom('fields')
          .select('table_name')
          .where('id', 'in', [...sampleIds])
          .execute()
      ).map((r) => r.table_name),
    );

    const imported = await importLicense(t.app, admin, issueLicense(vendor, t.clock.now(), { sku_tier: 'pro' }));
    assert.equal(imported.statusCode, 200, imported.body);
    assert.ok((await pending(t.app, admin)) > 0);
    await t.app.services.metricsWorker.drain();
    assert.equal(await pending(t.app, admin), 0);
    const after = await items(t.app, admin, own);
    const escaped = [...sampleTables].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    assertNoneNames(after, sampleIds, new RegExp(`\`(${escaped.join('|')})\\.`));
  });
});
