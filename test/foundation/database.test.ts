import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest, type Database } from '../../src/db/database.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../helpers/databases.js';

describeEachDatabase('Database.selectArrays', (kind) => {
  let test: TestDatabase;
  let database: Database;
  before(async () => {
    test = await createTestDatabase(kind);
    database = test.open();
    await migrateToLatest(database);
    const now = new Date().toISOString();
    await database.db
      .insertInto('datasources')
      .values([
        {
          id: '00000000-0000-4000-8000-000000000001',
          name: 'crm',
          type: 'postgresql',
          description: null,
          is_sample: 0,
          created_at: now,
          updated_at: now,
        },
        {
          id: '00000000-0000-4000-8000-000000000002',
          name: 'hr',
          type: 'mysql',
          description: 'people',
          is_sample: 1,
          created_at: now,
          updated_at: now,
        },
      ])
      .execute();
  });
  after(async () => {
    await database.close();
    await test.dispose();
  });

  it('answers rows as arrays in select-list order, with nulls and typed values, and leaves object queries alone', async () => {
    const query = () =>
      database.db
        .selectFrom('datasources')
        .select(['name', 'description', 'is_sample'])
        .where('name', 'in', ['crm', 'hr', 'none'])
        .orderBy('name');
    assert.deepEqual(await database.selectArrays(query().compile()), [
      ['crm', null, 0],
      ['hr', 'people', 1],
    ]);
    // The same SQL through Kysely still gives objects (array mode is not left on a shared statement).
    assert.deepEqual(await query().execute(), [
      { name: 'crm', description: null, is_sample: 0 },
      { name: 'hr', description: 'people', is_sample: 1 },
    ]);
    assert.deepEqual(
      await database.selectArrays(
        database.db.selectFrom('datasources').select('name').where('name', '=', 'none').compile(),
      ),
      [],
    );
  });
});

describeEachDatabase('migration 0007: the nearest field name is stored with the metrics', (kind) => {
  it('fills in the name of the nearest field of metrics stored before it, and rolls back', async () => {
    const test = await createTestDatabase(kind);
    const database = test.open();
    try {
      await migrateTo(database, '0006-metrics-queue-order');
      const now = new Date().toISOString();
      const source = '00000000-0000-4000-8000-000000000001';
      await sql`insert into datasources (id, name, type, description, is_sample, created_at, updated_at) values (${source}, 'crm', 'postgresql', null, 0, ${now}, ${now})`.execute(
        database.db,
      );
      const tag = (
        await sql<{
          id: number;
        }>`insert into tags (name, chain_path, default_level, created_at) values ('Email', 'Test/Email', 'L3', ${now}) returning id`.execute(
          database.db,
        )
      ).rows[0]!.id;
      const field = (id: string, table: string, name: string) =>
        sql`insert into fields (id, datasource_id, table_name, field_name, tag_id, level, created_at, updated_at) values (${id}, ${source}, ${table}, ${name}, ${tag}, 'L3', ${now}, ${now})`.execute(
          database.db,
        );
      const [a, b] = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
      await field(a, 'users', 'email');
      await field(b, 'contacts', 'mail');
      const metrics = (id: string, nearest: string | null) =>
        sql`insert into field_metrics (field_id, raw_category_anchor, score_category_anchor, raw_centroid, score_centroid, raw_peer_mean, score_peer_mean,
              raw_nearest, score_nearest, raw_lower_quartile, score_lower_quartile, raw_farthest, score_farthest, category_similarity, centroid_similarity,
              neighbour_disagreement, outlier_score, severity, nearest_field_id, reason, computed_at)
            values (${id}, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'low', ${nearest}, 'r', ${now})`.execute(
          database.db,
        );
      await metrics(a, b);
      await metrics(b, null);

      await migrateToLatest(database);
      const rows = await database.db
        .selectFrom('field_metrics')
        .select(['field_id', 'nearest_field_id', 'nearest_field_name'])
        .orderBy('field_id')
        .execute();
      assert.deepEqual(rows, [
        { field_id: a, nearest_field_id: b, nearest_field_name: 'contacts.mail' },
        { field_id: b, nearest_field_id: null, nearest_field_name: null },
      ]);

      await migrateTo(database, '0006-metrics-queue-order');
      assert.deepEqual(
        await database.db
          .selectFrom('field_metrics')
          .select(['field_id', 'nearest_field_id'])
          .orderBy('field_id')
          .execute(),
        [
          { field_id: a, nearest_field_id: b },
          { field_id: b, nearest_field_id: null },
        ],
      );
    } finally {
      await database.close();
      await test.dispose();
    }
  });
});

describeEachDatabase('migration 0023: stored scores change meaning, so every measured field is recomputed', (kind) => {
  it('queues every field with stored metrics (a claimed entry released), and leaves fields without metrics alone', async () => {
    const test = await createTestDatabase(kind);
    const database = test.open();
    try {
      await migrateTo(database, '0020-classification-rules');
      const now = new Date().toISOString();
      const source = '00000000-0000-4000-8000-000000000001';
      await sql`insert into datasources (id, name, type, description, is_sample, created_at, updated_at) values (${source}, 'crm', 'postgresql', null, 0, ${now}, ${now})`.execute(
        database.db,
      );
      const tag = (
        await sql<{
          id: number;
        }>`insert into tags (name, chain_path, default_level, created_at) values ('Email', 'Test/Email', 'L3', ${now}) returning id`.execute(
          database.db,
        )
      ).rows[0]!.id;
      const [a, b, c] = [
        '00000000-0000-4000-8000-00000000000a',
        '00000000-0000-4000-8000-00000000000b',
        '00000000-0000-4000-8000-00000000000c',
      ];
      for (const [id, name] of [
        [a, 'email'],
        [b, 'mail'],
        [c, 'notes'],
      ] as const) {
        await sql`insert into fields (id, datasource_id, table_name, field_name, tag_id, level, created_at, updated_at) values (${id}, ${source}, 'users', ${name}, ${tag}, 'L3', ${now}, ${now})`.execute(
          database.db,
        );
      }
      for (const id of [a, b]) {
        await sql`insert into field_metrics (field_id, raw_category_anchor, score_category_anchor, raw_centroid, score_centroid, raw_peer_mean, score_peer_mean,
              raw_nearest, score_nearest, raw_lower_quartile, score_lower_quartile, raw_farthest, score_farthest, category_similarity, centroid_similarity,
              neighbour_disagreement, outlier_score, severity, reason, computed_at)
            values (${id}, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0, 0, 0, 'low', 'r', ${now})`.execute(
          database.db,
        );
      }
      await sql`delete from metrics_queue`.execute(database.db);
      await sql`insert into metrics_queue (field_id, token, enqueued_at, claimed_by, claimed_at) values (${b}, 'old', ${now}, 'worker-1', ${now})`.execute(
        database.db,
      );

      await migrateToLatest(database);
      const queued = await database.db
        .selectFrom('metrics_queue')
        .select(['field_id', 'token', 'claimed_by', 'claimed_at'])
        .orderBy('field_id')
        .execute();
      assert.deepEqual(
        queued.map((q) => q.field_id),
        [a, b],
      );
      for (const q of queued) assert.deepEqual([q.token !== 'old', q.claimed_by, q.claimed_at], [true, null, null]);
    } finally {
      await database.close();
      await test.dispose();
    }
  });
});

describeEachDatabase('migration 0028: the label gap joins the classifier view', (kind) => {
  it('adds fields.predicted_label_gap as unknown, re-queues the views, and the change log watches it', async () => {
    const test = await createTestDatabase(kind);
    const database = test.open();
    try {
      await migrateTo(database, '0027-name-search');
      const now = new Date().toISOString();
      const source = '00000000-0000-4000-8000-000000000001';
      await sql`insert into datasources (id, name, type, description, is_sample, created_at, updated_at) values (${source}, 'crm', 'postgresql', null, 0, ${now}, ${now})`.execute(
        database.db,
      );
      const tag = (
        await sql<{
          id: number;
        }>`insert into tags (name, chain_path, default_level, created_at) values ('Email', 'Test/Email', 'L3', ${now}) returning id`.execute(
          database.db,
        )
      ).rows[0]!.id;
      const id = '00000000-0000-4000-8000-00000000000a';
      await sql`insert into fields (id, datasource_id, table_name, field_name, tag_id, level, predicted_tag_id, predicted_level, predicted_confidence, predicted_with, created_at, updated_at)
        values (${id}, ${source}, 'users', 'email', ${tag}, 'L3', ${tag}, 'L3', 0.9, 'classifier-key', ${now}, ${now})`.execute(
        database.db,
      );
      await sql`insert into settings (key, value, updated_at) values ('classifier.reclassify_enqueued_for', 'classifier-key', ${now})`.execute(
        database.db,
      );

      await migrateToLatest(database);
      const row = await database.db
        .selectFrom('fields')
        .select(['predicted_label_gap', 'predicted_tag_id', 'predicted_with'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { predicted_label_gap: null, predicted_tag_id: tag, predicted_with: 'classifier-key' });
      assert.equal(
        (
          await database.db
            .selectFrom('settings')
            .select('key')
            .where('key', '=', 'classifier.reclassify_enqueued_for')
            .execute()
        ).length,
        0,
        'the re-classification worker queues the outdated views again',
      );
      const changes = async (): Promise<number> =>
        (await database.db.selectFrom('catalog_changes').select('seq').where('field_id', '=', id).execute()).length;
      const before = await changes();
      await database.db.updateTable('fields').set({ predicted_label_gap: 2.5 }).where('id', '=', id).execute();
      assert.equal(await changes(), before + 1, 'a new gap is a catalog change');
      await database.db.updateTable('fields').set({ predicted_confidence: 0.8 }).where('id', '=', id).execute();
      assert.equal(await changes(), before + 1, 'the confidence alone is not');
    } finally {
      await database.close();
      await test.dispose();
    }
  });
});
