import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { migrateToLatest, type Database } from '../../src/db/database.js';
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
        { id: '00000000-0000-4000-8000-000000000001', name: 'crm', type: 'postgresql', description: null, is_sample: 0, created_at: now, updated_at: now },
        { id: '00000000-0000-4000-8000-000000000002', name: 'hr', type: 'mysql', description: 'people', is_sample: 1, created_at: now, updated_at: now },
      ])
      .execute();
  });
  after(async () => {
    await database.close();
    await test.dispose();
  });

  it('answers rows as arrays in select-list order, with nulls and typed values, and leaves object queries alone', async () => {
    const query = () => database.db.selectFrom('datasources').select(['name', 'description', 'is_sample']).where('name', 'in', ['crm', 'hr', 'none']).orderBy('name');
    assert.deepEqual(await database.selectArrays(query().compile()), [
      ['crm', null, 0],
      ['hr', 'people', 1],
    ]);
    // The same SQL through Kysely still gives objects (array mode is not left on a shared statement).
    assert.deepEqual(await query().execute(), [
      { name: 'crm', description: null, is_sample: 0 },
      { name: 'hr', description: 'people', is_sample: 1 },
    ]);
    assert.deepEqual(await database.selectArrays(database.db.selectFrom('datasources').select('name').where('name', '=', 'none').compile()), []);
  });
});
