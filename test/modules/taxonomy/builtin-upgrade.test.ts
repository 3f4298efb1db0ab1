import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';

describeEachDatabase('built-in tags of a newer release', (kind) => {
  let t: TestApp | undefined;
  let u: TestApp | undefined;
  after(async () => {
    await t?.close();
    await u?.close();
  });

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
    for (const r of before.filter((b) => b.chain_path !== path))
      assert.ok(after.some((a) => a.id === r.id && a.chain_path === r.chain_path));
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'taxonomy.builtin_tags_added')
      .execute();
    assert.equal(audit.length, 1);
    assert.deepEqual(JSON.parse(audit[0]!.details).tags, [path]);
  });

  it('an install from before classifier 1.2 gains Age, Marital status, Time zone and File reference under their parents', async () => {
    u = await buildTestApp(kind);
    const added = [
      'Personal/Identity/Age',
      'Personal/Identity/Marital status',
      'Technical/File reference',
      'Public reference data/Time zone',
    ];
    await u.database.db.deleteFrom('tags').where('chain_path', 'in', added).execute();
    await u.app.services.bootstrap();
    const rows = await u.database.db
      .selectFrom('tags')
      .select(['id', 'chain_path', 'parent_id', 'default_level', 'is_builtin'])
      .execute();
    const byPath = new Map(rows.map((r) => [r.chain_path, r]));
    for (const path of added) {
      const row = byPath.get(path);
      assert.ok(row, `${path} is back`);
      assert.equal(Number(row.is_builtin), 1);
      const parent = byPath.get(path.slice(0, path.lastIndexOf('/')));
      assert.equal(row.parent_id, parent?.id, `${path} sits under its parent`);
    }
    assert.equal(byPath.get('Personal/Identity/Age')?.default_level, 'L3');
    assert.equal(byPath.get('Public reference data/Time zone')?.default_level, 'L1');
    const audit = await u.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'taxonomy.builtin_tags_added')
      .execute();
    assert.deepEqual(JSON.parse(audit.at(-1)!.details).tags.sort(), [...added].sort());
  });
});
