import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { flattenTaxonomy } from '../../../src/modules/taxonomy/default-taxonomy.js';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { auditActions, countRows, createDatasource, importOk } from '../fields/factories.js';

interface TagBody {
  id: number;
  name: string;
  parent_id: number | null;
  chain_path: string;
  default_level: string;
  description: string | null;
  keywords: string[];
}

describeEachDatabase('taxonomy and levels', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  const tags = async (): Promise<TagBody[]> =>
    json<{ items: TagBody[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) }),
    ).items;
  const createTag = (payload: Record<string, unknown>, as = token) =>
    t.app.inject({ method: 'POST', url: '/api/v1/classification/tags', headers: bearer(as), payload });

  it('lists the configured levels in order', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/classification/levels',
      headers: bearer(token),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(json(response), {
      items: [
        { code: 'L1', name: 'Public', rank: 1 },
        { code: 'L2', name: 'Internal', rank: 2 },
        { code: 'L3', name: 'Confidential', rank: 3 },
        { code: 'L4', name: 'Sensitive', rank: 4 },
        { code: 'L5', name: 'Restricted', rank: 5 },
      ],
    });
  });

  it('loads the default taxonomy at first start, parents before children', async () => {
    const items = await tags();
    const flat = flattenTaxonomy();
    assert.deepEqual(
      items.map((tag) => tag.chain_path),
      flat.map((tag) => tag.chain_path),
    );
    const byId = new Map(items.map((tag) => [tag.id, tag]));
    for (const tag of items) {
      const parent = tag.parent_id === null ? undefined : byId.get(tag.parent_id);
      assert.equal(tag.chain_path, parent ? `${parent.chain_path}/${tag.name}` : tag.name);
    }
    const email = items.find((tag) => tag.chain_path === 'Personal/Contact/Email address');
    assert.ok(email && email.keywords.includes('email') && email.default_level === 'L3');
    assert.equal((await auditActions(t.database, 'taxonomy.default_loaded')).length, 1);
  });

  it('creates a tag under a parent, audit-logged, and uses it for automatic classification at once', async () => {
    const root = await createTag({ name: 'Maritime', default_level: 'L2' });
    assert.equal(root.statusCode, 201, root.body);
    const parent = json<TagBody>(root);
    const response = await createTag({
      name: 'Vessel',
      parent_id: parent.id,
      default_level: 'L2',
      description: 'The name or hull number of a ship.',
      keywords: ['ship', 'vessel', 'hull', 'imo number', 'boat'],
    });
    assert.equal(response.statusCode, 201);
    const vessel = json<TagBody>(response);
    assert.deepEqual(
      { ...vessel, id: 0 },
      {
        id: 0,
        name: 'Vessel',
        parent_id: parent.id,
        chain_path: 'Maritime/Vessel',
        default_level: 'L2',
        description: 'The name or hull number of a ship.',
        keywords: ['ship', 'vessel', 'hull', 'imo number', 'boat'],
      },
    );
    assert.ok((await tags()).some((tag) => tag.id === vessel.id));
    assert.equal((await auditActions(t.database, 'taxonomy.tag_created')).at(-1)?.target_id, String(vessel.id));

    // The anchors were cached by earlier imports; the new tag must be seen now.
    const source = await createDatasource(t.app, token);
    await importOk(t.app, token, source, [{ table_name: 'users', field_name: 'email' }]);
    const { field_ids } = await importOk(t.app, token, source, [{ table_name: 'fleet', field_name: 'vessel_imo' }]);
    const field = json<{ classification_tag_id: number; level: string }>(
      await t.app.inject({ method: 'GET', url: `/api/v1/fields/${field_ids[0]}`, headers: bearer(token) }),
    );
    assert.equal(field.classification_tag_id, vessel.id);
    assert.equal(field.level, 'L2');
  });

  it('refuses an unknown parent or level with 422, a duplicate chain path with 409, and writes nothing', async () => {
    const before = await countRows(t.database, 'tags');
    const auditBefore = await countRows(t.database, 'audit_log');
    const unknownParent = await createTag({ name: 'Orphan', parent_id: 999_999, default_level: 'L1' });
    assert.equal(unknownParent.statusCode, 422);
    assert.deepEqual(
      problem(unknownParent).errors?.map((e) => e.path),
      ['/parent_id'],
    );
    const unknownLevel = await createTag({ name: 'Odd', default_level: 'L9' });
    assert.equal(unknownLevel.statusCode, 422);
    assert.deepEqual(
      problem(unknownLevel).errors?.map((e) => e.path),
      ['/default_level'],
    );
    const personal = (await tags()).find((tag) => tag.chain_path === 'Personal');
    const duplicate = await createTag({ name: 'Contact', parent_id: personal?.id, default_level: 'L3' });
    assert.equal(duplicate.statusCode, 409);
    assert.equal(problem(duplicate).code, 'conflict');
    assert.equal(await countRows(t.database, 'tags'), before);
    assert.equal(await countRows(t.database, 'audit_log'), auditBefore);
  });

  it('validates tag names: no "/", no control characters, at most 100 characters', async () => {
    for (const name of ['a/b', 'bad\u0001name', 'line\nbreak', 'x'.repeat(101), '', ' padded ']) {
      const response = await createTag({ name, default_level: 'L1' });
      assert.equal(response.statusCode, 400, JSON.stringify(name));
      assert.deepEqual(
        problem(response).errors?.map((e) => e.path),
        ['/name'],
      );
    }
    assert.equal((await createTag({ name: 'y'.repeat(100), default_level: 'L1' })).statusCode, 201);
  });

  it('answers 401 without a token and 403 to roles without taxonomy:write', async () => {
    for (const request of [
      { method: 'GET' as const, url: '/api/v1/classification/levels' },
      { method: 'GET' as const, url: '/api/v1/classification/tags' },
      { method: 'POST' as const, url: '/api/v1/classification/tags', payload: { name: 'x', default_level: 'L1' } },
    ]) {
      const response = await t.app.inject(request);
      assert.equal(response.statusCode, 401, `${request.method} ${request.url}`);
      assert.equal(problem(response).code, 'unauthorized');
    }
    const dba = await createUser(t.app, ['dba']);
    const refused = await createTag({ name: 'By DBA', default_level: 'L1' }, dba.token);
    assert.equal(refused.statusCode, 403);
    assert.equal(problem(refused).code, 'forbidden');
    const owner = await createUser(t.app, ['classifier_owner']);
    assert.equal((await createTag({ name: 'By owner', default_level: 'L1' }, owner.token)).statusCode, 201);
    const observer = await createUser(t.app, ['observer']);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(observer.token) }))
        .statusCode,
      200,
    );
  });
});

describeEachDatabase('custom level scheme', (kind) => {
  it('maps the default taxonomy onto FIELDLENS_LEVELS by rank', async () => {
    const t = await buildTestApp(kind, { env: { FIELDLENS_LEVELS: 'P:Public,I:Internal,S:Secret' } });
    try {
      const token = await adminToken(t.app);
      const items = json<{ items: TagBody[] }>(
        await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) }),
      ).items;
      const level = (path: string) => items.find((tag) => tag.chain_path === path)?.default_level;
      assert.equal(level('Technical/Timestamp'), 'P');
      assert.equal(level('Personal/Contact/Email address'), 'I');
      assert.equal(level('Personal/Identity/National ID number'), 'S');
    } finally {
      await t.close();
    }
  });
});
