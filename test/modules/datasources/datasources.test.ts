import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { auditActions, countRows, importOk, manyFields } from '../fields/factories.js';

interface DatasourceBody {
  id: string;
  name: string;
  type: string;
  description: string | null;
  is_sample: boolean;
  field_count: number;
  connection: Record<string, unknown> | null;
  has_password: boolean;
  scan_interval_hours: number | null;
  created_at: string;
}

describeEachDatabase('data sources', (kind) => {
  let t: TestApp;
  let token: string;

  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  const create = (payload: Record<string, unknown>, as = token) =>
    t.app.inject({ method: 'POST', url: '/api/v1/datasources', headers: bearer(as), payload });
  const remove = (id: string, as = token) =>
    t.app.inject({ method: 'DELETE', url: `/api/v1/datasources/${id}`, headers: bearer(as) });
  const list = async (): Promise<DatasourceBody[]> =>
    json<{ items: DatasourceBody[] }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) }),
    ).items;

  it('creates a data source, lists it with its field count, and deletes it with its fields', async () => {
    const response = await create({ name: 'warehouse', type: 'postgresql', description: 'The DWH' });
    assert.equal(response.statusCode, 201);
    const created = json<DatasourceBody>(response);
    assert.deepEqual(
      { ...created, id: undefined, created_at: undefined },
      {
        id: undefined,
        name: 'warehouse',
        type: 'postgresql',
        description: 'The DWH',
        is_sample: false,
        field_count: 0,
        connection: null,
        has_password: false,
        scan_interval_hours: null,
        created_at: undefined,
      },
    );
    const { field_ids } = await importOk(t.app, token, created.id, manyFields(12, 'dw'));
    assert.equal((await list()).find((d) => d.id === created.id)?.field_count, 12);
    assert.equal((await auditActions(t.database, 'datasource.created')).at(-1)?.target_id, created.id);

    const deleted = await remove(created.id);
    assert.equal(deleted.statusCode, 204);
    assert.equal(
      (await list()).some((d) => d.id === created.id),
      false,
    );
    const field = await t.app.inject({ method: 'GET', url: `/api/v1/fields/${field_ids[0]}`, headers: bearer(token) });
    assert.equal(field.statusCode, 404, 'the fields went with their data source');
    const entry = (await auditActions(t.database, 'datasource.deleted')).at(-1);
    assert.equal(entry?.target_id, created.id);
    assert.equal(entry?.details.fields_removed, 12);
  });

  it('refuses a duplicate name with 409 and writes nothing', async () => {
    assert.equal((await create({ name: 'dup', type: 'mysql' })).statusCode, 201);
    const before = await countRows(t.database, 'audit_log');
    const again = await create({ name: 'dup', type: 'oracle' });
    assert.equal(again.statusCode, 409);
    assert.equal(problem(again).code, 'conflict');
    assert.equal((await list()).filter((d) => d.name === 'dup').length, 1);
    assert.equal(await countRows(t.database, 'audit_log'), before);
    await remove((await list()).find((d) => d.name === 'dup')?.id as string);
  });

  it('checks the license quota inside the creation: the trial allows 3 data sources', async () => {
    const ids: string[] = [];
    for (const name of ['q1', 'q2', 'q3']) {
      const response = await create({ name, type: 'mysql' });
      assert.equal(response.statusCode, 201, response.body);
      ids.push(json<DatasourceBody>(response).id);
    }
    const refused = await create({ name: 'q4', type: 'mysql' });
    assert.equal(refused.statusCode, 403);
    assert.equal(problem(refused).code, 'quota_exceeded');
    assert.equal(
      (await list()).some((d) => d.name === 'q4'),
      false,
    );
    // Removing an idle one clears it.
    assert.equal((await remove(ids[0] as string)).statusCode, 204);
    const accepted = await create({ name: 'q4', type: 'mysql' });
    assert.equal(accepted.statusCode, 201);
    for (const id of [...ids.slice(1), json<DatasourceBody>(accepted).id]) await remove(id);
  });

  it('validates the body and the id', async () => {
    for (const payload of [
      { name: '', type: 'pg' },
      { name: 'a\u0000b', type: 'pg' },
      { name: 'x'.repeat(129), type: 'pg' },
      { name: 'ok' },
      { name: 'ok', type: 'pg', extra: 1 },
    ]) {
      const response = await create(payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(problem(response).code, 'validation_failed');
    }
    assert.equal((await remove('00000000-0000-4000-8000-000000000000')).statusCode, 404);
    assert.equal((await remove('nope')).statusCode, 400);
  });

  it('answers 401 without a token and 403 to roles without datasource:write', async () => {
    for (const request of [
      { method: 'GET' as const, url: '/api/v1/datasources' },
      { method: 'POST' as const, url: '/api/v1/datasources', payload: { name: 'x', type: 'pg' } },
      { method: 'DELETE' as const, url: '/api/v1/datasources/00000000-0000-4000-8000-000000000000' },
    ]) {
      const response = await t.app.inject(request);
      assert.equal(response.statusCode, 401, `${request.method} ${request.url}`);
      assert.equal(problem(response).code, 'unauthorized');
    }
    const operator = await createUser(t.app, ['operator']);
    const created = await create({ name: 'by-operator', type: 'pg' }, operator.token);
    assert.equal(created.statusCode, 403);
    assert.equal(problem(created).code, 'forbidden');
    const own = json<DatasourceBody>(await create({ name: 'kept', type: 'pg' }));
    assert.equal((await remove(own.id, operator.token)).statusCode, 403);
    assert.ok((await list()).some((d) => d.id === own.id));
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(operator.token) });
    assert.equal(read.statusCode, 200);
    await remove(own.id);
  });
});
