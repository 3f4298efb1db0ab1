import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { SYSTEM_ACTOR } from '../../../src/modules/audit/audit.service.js';
import { loadSampleCatalog } from '../../../src/modules/sample-data/sample-catalog.js';
import { adminToken, bearer, buildTestApp, json, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, describeEachDatabase } from '../../helpers/databases.js';
import { auditActions, countRows } from '../fields/factories.js';

interface DatasourceBody {
  id: string;
  name: string;
  is_sample: boolean;
  field_count: number;
}

const sampleCatalog = loadSampleCatalog().datasources;
const sampleFieldCount = sampleCatalog.reduce((n, s) => n + s.fields.length, 0);

describeEachDatabase('sample data', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' } });
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  const list = async (app = t.app): Promise<DatasourceBody[]> =>
    json<{ items: DatasourceBody[] }>(
      await app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items;

  it('loads the sample catalog on a fresh trial start, marked as sample', async () => {
    const sources = await list();
    assert.deepEqual(sources.map((s) => s.name).sort(), sampleCatalog.map((s) => s.name).sort());
    assert.ok(sources.every((s) => s.is_sample));
    assert.equal(
      sources.reduce((n, s) => n + s.field_count, 0),
      sampleFieldCount,
    );
    assert.ok(sampleFieldCount >= 400);
    const fields = json<{
      items: Array<{
        datasource_id: string;
        table_name: string;
        field_name: string;
        classification_chain_path: string;
        level: string;
        review_status: string;
      }>;
    }>(await t.app.inject({ method: 'GET', url: '/api/v1/fields?limit=500', headers: bearer(token) })).items;
    assert.ok(fields.every((f) => f.review_status === 'unreviewed'));
    // Every field of the data file, with the classification it gives (the seeded mistakes included).
    const sourceName = new Map(sources.map((s) => [s.id, s.name]));
    const loadedPaths = new Map(
      fields.map((f) => [
        `${sourceName.get(f.datasource_id)}.${f.table_name}.${f.field_name}`,
        `${f.classification_chain_path} ${f.level}`,
      ]),
    );
    const expectedPaths = new Map(
      sampleCatalog.flatMap((s) =>
        s.fields.map(
          (f) => [`${s.name}.${f.table_name}.${f.field_name}`, `${f.classification_chain_path} ${f.level}`] as const,
        ),
      ),
    );
    assert.deepEqual(loadedPaths, expectedPaths);
    assert.equal(loadedPaths.get('crm.contacts.email'), 'Technical/Timestamp L1');
    const loaded = await auditActions(t.database, 'sample_data.loaded');
    assert.equal(loaded.length, 1);
    const row = await t.database.db
      .selectFrom('fields')
      .select(['embedding', 'embedder_version'])
      .executeTakeFirstOrThrow();
    assert.ok(row.embedding && row.embedder_version, 'sample fields are embedded like imported ones');
  });

  it('does not count sample sources against the data-source quota', async () => {
    const created: string[] = [];
    for (const name of ['own-1', 'own-2', 'own-3']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(token),
        payload: { name, type: 'mysql' },
      });
      assert.equal(response.statusCode, 201, response.body);
      created.push(json<{ id: string }>(response).id);
    }
    assert.equal(await t.app.services.datasources.countBillableDatasources(), 3);
    for (const id of created)
      await t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${id}`, headers: bearer(token) });
  });

  it('loads it only once: a restart on the same database adds nothing', async () => {
    const fieldsBefore = await countRows(t.database, 'fields');
    const second = await buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' }, testDatabase: t.testDatabase });
    try {
      assert.equal(await countRows(second.database, 'fields'), fieldsBefore);
      assert.equal((await auditActions(second.database, 'sample_data.loaded')).length, 1);
    } finally {
      await second.close();
    }
  });

  it("removeSampleData deletes the sample sources and their fields, audit-logged; the user's own source stays", async () => {
    const own = json<{ id: string }>(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(token),
        payload: { name: 'mine', type: 'mysql' },
      }),
    );
    const removed = await t.database.db
      .transaction()
      .execute((trx) => t.app.services.sampleData.removeSampleData(trx, SYSTEM_ACTOR));
    assert.deepEqual(removed, { datasources: sampleCatalog.length, fields: sampleFieldCount });
    assert.deepEqual(
      (await list()).map((s) => s.id),
      [own.id],
    );
    assert.equal(await countRows(t.database, 'fields'), 0);
    assert.deepEqual(
      (await auditActions(t.database, 'sample_data.removed')).map((a) => a.details),
      [{ datasources: sampleCatalog.map((s) => s.name).sort(), fields: sampleFieldCount }],
    );
    // Nothing left to remove: no second audit entry.
    const secondRemoval = await t.database.db
      .transaction()
      .execute((trx) => t.app.services.sampleData.removeSampleData(trx, SYSTEM_ACTOR));
    assert.deepEqual(secondRemoval, { datasources: 0, fields: 0 });
    assert.equal((await auditActions(t.database, 'sample_data.removed')).length, 1);
    // A restart does not bring it back.
    const again = await buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' }, testDatabase: t.testDatabase });
    try {
      assert.equal(await countRows(again.database, 'fields'), 0);
    } finally {
      await again.close();
    }
  });
});

// Separate suite: each test opens its own fresh database, after the suite above closed its app.
describeEachDatabase('sample data: switched off, concurrent start', (kind) => {
  it('loads nothing when FIELDLENS_SAMPLE_DATA=off', async () => {
    const off = await buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'off' } });
    try {
      assert.equal(await countRows(off.database, 'datasources'), 0);
      assert.equal(await countRows(off.database, 'fields'), 0);
      assert.ok((await countRows(off.database, 'tags')) > 50, 'the default taxonomy is loaded regardless');
    } finally {
      await off.close();
    }
  });

  if (kind === 'postgres') {
    it('two instances starting at once on one database load the taxonomy and the sample data once', async () => {
      const shared = await createTestDatabase(kind);
      try {
        const apps = await Promise.all([
          buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' }, testDatabase: shared }),
          buildTestApp(kind, { env: { FIELDLENS_SAMPLE_DATA: 'on' }, testDatabase: shared }),
        ]);
        try {
          const db = apps[0]?.database as TestApp['database'];
          assert.equal(await countRows(db, 'fields'), sampleFieldCount);
          assert.equal(await countRows(db, 'datasources'), sampleCatalog.length);
          assert.equal((await auditActions(db, 'sample_data.loaded')).length, 1);
          assert.equal((await auditActions(db, 'taxonomy.default_loaded')).length, 1);
        } finally {
          await Promise.all(apps.map((a) => a.close()));
        }
      } finally {
        await shared.dispose();
      }
    });
  }
});
