import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';

describeEachDatabase('built-in tags of a newer release', (kind) => {
  let t: TestApp | undefined;
  after(async () => t?.close());

  it('a start adds the built-in tags the database lacks (as after an upgrade), once, audited; existing tags are untouched', async () => {
    t = await buildTestApp(kind);
    // A database created by an older release: one built-in leaf is missing.
    const path = 'Technical/Sort order';
    const before = await t.database.db.selectFrom('tags').select(['id', 'chain_path']).orderBy('id').execute();
    assert.ok(before.some((r) => r.chain_path === path));
    await t.database.db.deleteFrom('tags').where('chain_path', '=', path).execute();

    await t.app.services.bootstrap();
    await t.app.services.bootstrap();
    const after = await t.database.db.selectFrom('tags').select(['id', 'chain_path']).orderBy('id').execute();
    assert.equal(after.length, before.length);
    assert.ok(after.some((r) => r.chain_path === path));
    for (const r of before.filter((b) => b.chain_path !== path)) assert.ok(after.some((a) => a.id === r.id && a.chain_path === r.chain_path));
    const audit = await t.database.db.selectFrom('audit_log').select('details').where('action', '=', 'taxonomy.builtin_tags_added').execute();
    assert.equal(audit.length, 1);
    assert.deepEqual(JSON.parse(audit[0]!.details).tags, [path]);
  });
});
