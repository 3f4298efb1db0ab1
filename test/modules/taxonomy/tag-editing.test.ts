// Editing the taxonomy: rename, move, re-level, delete with replacement; built-in tags like any other.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { auditActions, createDatasource, importOk } from '../fields/factories.js';

interface TagBody {
  id: number;
  name: string;
  parent_id: number | null;
  chain_path: string;
  default_level: string;
  description: string | null;
  keywords: string[];
}

interface FieldBody {
  id: string;
  classification_tag_id: number;
  classification_chain_path: string;
  level: string;
  review_status: string;
  classification_source: string;
  suggested_classification: { tag_id: number } | null;
}

describeEachDatabase('editing the taxonomy', (kind) => {
  let t: TestApp;
  let token: string;
  let ds: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
    ds = await createDatasource(t.app, token);
  });
  after(async () => t.close());

  const tags = async (): Promise<TagBody[]> =>
    json<{ items: TagBody[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) }),
    ).items;
  const tagAt = async (path: string): Promise<TagBody> => {
    const tag = (await tags()).find((x) => x.chain_path === path);
    assert.ok(tag, `no tag at ${path}`);
    return tag;
  };
  const createTag = async (payload: Record<string, unknown>): Promise<TagBody> => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classification/tags',
      headers: bearer(token),
      payload,
    });
    assert.equal(response.statusCode, 201, response.body);
    return json<TagBody>(response);
  };
  const patchTag = (id: number, payload: unknown, as = token) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/v1/classification/tags/${id}`,
      headers: bearer(as),
      payload: payload as Record<string, unknown>,
    });
  const deleteTag = (id: number, replaceWith?: number, as = token) =>
    t.app.inject({
      method: 'DELETE',
      url: `/api/v1/classification/tags/${id}${replaceWith === undefined ? '' : `?replace_with=${replaceWith}`}`,
      headers: bearer(as),
    });
  const field = async (id: string): Promise<FieldBody> =>
    json<FieldBody>(await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) }));

  it('renames a tag and moves it with its subtree: chain paths of the tag, its descendants and their fields follow; audited', async () => {
    const root = await createTag({ name: 'Loyalty', default_level: 'L2' });
    const card = await createTag({ name: 'Card', parent_id: root.id, default_level: 'L3', keywords: ['treuekarte'] });
    const number = await createTag({ name: 'Number', parent_id: card.id, default_level: 'L3' });
    const { field_ids } = await importOk(t.app, token, ds, [
      { table_name: 'members', field_name: 'treuekarte_nr', classification_tag_id: number.id, level: 'L3' },
    ]);

    const renamed = await patchTag(card.id, { name: 'Loyalty card', description: 'The card of the loyalty programme' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(json<TagBody>(renamed).chain_path, 'Loyalty/Loyalty card');
    assert.equal((await tagAt('Loyalty/Loyalty card/Number')).id, number.id);
    assert.equal((await field(field_ids[0] as string)).classification_chain_path, 'Loyalty/Loyalty card/Number');

    const personal = await tagAt('Personal');
    const moved = await patchTag(card.id, { parent_id: personal.id });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(json<TagBody>(moved).chain_path, 'Personal/Loyalty card');
    assert.equal((await field(field_ids[0] as string)).classification_chain_path, 'Personal/Loyalty card/Number');
    const toRoot = await patchTag(card.id, { parent_id: null });
    assert.equal(json<TagBody>(toRoot).chain_path, 'Loyalty card');

    const entries = await auditActions(t.database, 'tag.updated');
    const last = entries.at(-1);
    assert.equal(last?.target_id, String(card.id));
    assert.deepEqual(last?.details.changed, {
      parent_id: { from: personal.id, to: null },
      chain_path: { from: 'Personal/Loyalty card', to: 'Loyalty card' },
    });
    assert.equal(last?.details.descendants_moved, 1);
  });

  it('refuses a move under itself or its own descendant (422, nothing changed), an unknown parent or level (422), a taken path (409), an unknown tag (404)', async () => {
    const a = await createTag({ name: 'Cycle A', default_level: 'L2' });
    const b = await createTag({ name: 'B', parent_id: a.id, default_level: 'L2' });
    const c = await createTag({ name: 'C', parent_id: b.id, default_level: 'L2' });
    for (const parent of [a.id, c.id]) {
      const response = await patchTag(a.id, { parent_id: parent, name: 'Renamed on the way' });
      assert.equal(response.statusCode, 422);
      assert.equal(problem(response).errors?.[0]?.path, '/parent_id');
    }
    assert.equal((await tagAt('Cycle A/B/C')).id, c.id, 'nothing changed');
    assert.equal(problem(await patchTag(a.id, { parent_id: 999_999 })).status, 422);
    const level = await patchTag(a.id, { default_level: 'L9' });
    assert.equal(level.statusCode, 422);
    assert.equal(problem(level).errors?.[0]?.path, '/default_level');
    await createTag({ name: 'Taken', default_level: 'L2' });
    const taken = await patchTag(a.id, { name: 'Taken' });
    assert.equal(taken.statusCode, 409);
    assert.equal(problem(taken).code, 'conflict');
    assert.equal((await patchTag(999_999, { name: 'x' })).statusCode, 404);
    assert.equal((await patchTag(a.id, {})).statusCode, 400, 'an empty change is refused');
    assert.equal((await patchTag(a.id, { name: 'a/b' })).statusCode, 400);
    assert.equal((await patchTag(a.id, { name: 'x', extra: 1 })).statusCode, 400);
    assert.equal((await tagAt('Cycle A')).name, 'Cycle A');
  });

  it('a changed default level reaches the fields the classifier classified, not those an import gave or a reviewer confirmed', async () => {
    const { field_ids } = await importOk(t.app, token, ds, [
      { table_name: 'customers', field_name: 'email_address', data_type: 'varchar(255)' },
      {
        table_name: 'customers',
        field_name: 'contact_email',
        data_type: 'varchar(255)',
        classification_chain_path: 'Personal/Contact/Email address',
        level: 'L3',
      },
    ]);
    const [auto, given] = [await field(field_ids[0] as string), await field(field_ids[1] as string)];
    assert.equal(auto.classification_source, 'classifier');
    assert.equal(auto.classification_chain_path, 'Personal/Contact/Email address');
    assert.equal(auto.level, 'L3');
    const email = await tagAt('Personal/Contact/Email address');

    const response = await patchTag(email.id, { default_level: 'L4' });
    assert.equal(response.statusCode, 200, response.body);
    await t.app.services.reclassifyWorker.drain();
    assert.equal((await field(auto.id)).level, 'L4', 'the classifier gives the new default level');
    assert.equal((await field(given.id)).level, 'L3', 'an import-given level stays');
    await patchTag(email.id, { default_level: 'L3' });
    await t.app.services.reclassifyWorker.drain();
  });

  it('a renamed and moved built-in tag is still what the classifier answers, and a later start does not add it again', async () => {
    const phone = await tagAt('Personal/Contact/Phone number');
    const other = await createTag({ name: 'Reachability', default_level: 'L3' });
    assert.equal((await patchTag(phone.id, { name: 'Telefonnummer', parent_id: other.id })).statusCode, 200);
    const { field_ids } = await importOk(t.app, token, ds, [
      { table_name: 'kunden', field_name: 'mobile_phone', data_type: 'varchar(32)' },
    ]);
    const classified = await field(field_ids[0] as string);
    assert.equal(classified.classification_tag_id, phone.id);
    assert.equal(classified.classification_chain_path, 'Reachability/Telefonnummer');

    const count = (await tags()).length;
    await t.app.services.bootstrap();
    const after = await tags();
    assert.equal(after.length, count, 'nothing re-added');
    assert.ok(!after.some((x) => x.chain_path === 'Personal/Contact/Phone number'));
  });

  it('deletes a tag with its subtree: its fields and suggestions move to the replacement, counts audited; a deleted built-in stays deleted', async () => {
    const parent = await createTag({ name: 'Old scheme', default_level: 'L2' });
    const child = await createTag({ name: 'Old leaf', parent_id: parent.id, default_level: 'L2' });
    const target = await tagAt('Personal/Identity/Full name');
    const { field_ids } = await importOk(t.app, token, ds, [
      { table_name: 'legacy', field_name: 'a', classification_tag_id: parent.id, level: 'L2' },
      { table_name: 'legacy', field_name: 'b', classification_tag_id: child.id, level: 'L4' },
    ]);

    const inUse = await deleteTag(parent.id);
    assert.equal(inUse.statusCode, 409, 'still classifying fields');
    const intoItself = await deleteTag(parent.id, child.id);
    assert.equal(intoItself.statusCode, 422);
    assert.equal(problem(intoItself).errors?.[0]?.path, '/replace_with');
    assert.equal((await deleteTag(parent.id, 999_999)).statusCode, 422);
    assert.equal((await tagAt('Old scheme/Old leaf')).id, child.id, 'nothing changed');

    const done = await deleteTag(parent.id, target.id);
    assert.equal(done.statusCode, 204, done.body);
    const paths = (await tags()).map((x) => x.chain_path);
    assert.ok(!paths.includes('Old scheme') && !paths.includes('Old scheme/Old leaf'));
    for (const [id, level] of [
      [field_ids[0], 'L2'],
      [field_ids[1], 'L4'],
    ] as const) {
      const f = await field(id as string);
      assert.equal(f.classification_tag_id, target.id);
      assert.equal(f.level, level, 'the level stays');
    }
    const entry = (await auditActions(t.database, 'tag.deleted')).at(-1);
    assert.equal(entry?.target_id, String(parent.id));
    assert.deepEqual(entry?.details.tags_deleted, ['Old scheme', 'Old scheme/Old leaf']);
    assert.equal(entry?.details.fields_moved, 2);

    // A built-in tag nobody uses: deleted without a replacement, and not brought back by the next start.
    const sortOrder = await tagAt('Technical/Sort order');
    assert.equal((await deleteTag(sortOrder.id)).statusCode, 204);
    await t.app.services.bootstrap();
    assert.ok(!(await tags()).some((x) => x.chain_path === 'Technical/Sort order'));
    assert.equal((await deleteTag(sortOrder.id)).statusCode, 404);
  });

  it('only taxonomy writers edit or delete tags (403 for an operator, nothing changed)', async () => {
    const operator = await createUser(t.app, ['operator']);
    const tag = await createTag({ name: 'Guarded', default_level: 'L2' });
    assert.equal((await patchTag(tag.id, { name: 'Changed' }, operator.token)).statusCode, 403);
    assert.equal((await deleteTag(tag.id, undefined, operator.token)).statusCode, 403);
    assert.equal((await tagAt('Guarded')).id, tag.id);
  });
});
