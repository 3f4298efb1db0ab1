/**
 * Request validation: bodies are validated as sent, never coerced into an action (`null` is not `false`, `0` is not
 * "none"), and malformed query input (infinite or out-of-range numbers, NUL characters) is a 400 problem on both
 * databases, never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { auditSeq, batchConfirm, confirm, getField, newFields } from '../modules/review/factories.js';

function assertValidationFailed(response: LightMyRequestResponse, what: string): void {
  assert.equal(response.statusCode, 400, `${what}: ${response.statusCode} ${response.body}`);
  assert.equal(problem(response).code, 'validation_failed', what);
}

describeEachDatabase('validation: bodies are not coerced', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('PATCH /users/{id} {"disabled": null} is refused and a disabled user stays disabled', async () => {
    const user = await createUser(t.app, ['observer'], { token });
    const disable = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(token),
      payload: { disabled: true },
    });
    assert.equal(disable.statusCode, 200, disable.body);
    for (const disabled of [null, 0, 'false', '']) {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${user.id}`,
        headers: bearer(token),
        payload: { disabled },
      });
      assertValidationFailed(response, `disabled: ${JSON.stringify(disabled)}`);
    }
    const list = json<{ items: Array<{ id: string; disabled: boolean }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(token) }),
    );
    assert.equal(list.items.find((u) => u.id === user.id)?.disabled, true);
  });

  it('confirm and batch-confirm refuse 0, false and empty strings instead of confirming the current classification', async () => {
    const [id] = await newFields(t.app, token, 1);
    assert.ok(id);
    const seq = await auditSeq(t.database);
    const bad = [
      { classification_tag_id: 0 },
      { classification_tag_id: false },
      { classification_tag_id: '5' },
      { classification_tag_id: 99_999_999_999 },
      { lock_level: '' },
      { lock_level: false },
      { classification_chain_path: '' },
      { classification_chain_path: 0 },
    ];
    for (const body of bad) {
      assertValidationFailed(await confirm(t.app, token, id, body), `confirm ${JSON.stringify(body)}`);
      assertValidationFailed(
        await batchConfirm(t.app, token, { field_ids: [id], ...body }),
        `batch-confirm ${JSON.stringify(body)}`,
      );
    }
    assert.equal((await getField(t.app, token, id)).review_status, 'unreviewed');
    assert.equal(await auditSeq(t.database), seq, 'nothing was confirmed or audit-logged');
    // null keeps the current value, as documented.
    const kept = await confirm(t.app, token, id, {
      classification_tag_id: null,
      classification_chain_path: null,
      lock_level: null,
    });
    assert.equal(kept.statusCode, 200, kept.body);
  });

  it('POST /classification/tags {"parent_id": 0} is refused instead of creating a root tag', async () => {
    for (const parent_id of [0, false, '', '3']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/classification/tags',
        headers: bearer(token),
        payload: { name: `coerced-root-${String(parent_id)}`, parent_id, default_level: 'L1' },
      });
      assertValidationFailed(response, `parent_id: ${JSON.stringify(parent_id)}`);
    }
    const tags = json<{ items: Array<{ name: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/classification/tags', headers: bearer(token) }),
    );
    assert.ok(!tags.items.some((tag) => tag.name.startsWith('coerced-root-')));
  });

  it('a number where a string belongs is refused (no coercion to text)', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 12345, password: 123456789012 },
    });
    assertValidationFailed(response, 'numeric credentials');
  });
});

describeEachDatabase('validation: malformed query input is 400, never 500', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind);
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

  it('infinite and out-of-range numbers', async () => {
    for (const url of [
      '/api/v1/fields?limit=Infinity',
      '/api/v1/fields?limit=1e309',
      '/api/v1/fields?limit=-Infinity',
      '/api/v1/audit-logs?limit=1e309',
      '/api/v1/audit-logs?limit=Infinity',
      '/api/v1/fields?tag_id=99999999999999999999',
      '/api/v1/fields?tag_id=2147483648',
    ]) {
      assertValidationFailed(await get(url), url);
    }
    assert.equal((await get('/api/v1/fields?limit=2&tag_id=2147483647')).statusCode, 200);
    assert.equal((await get('/api/v1/fields?limit=5')).statusCode, 200, 'query strings are still coerced from text');
  });

  it('NUL characters in filters and in a login', async () => {
    for (const url of [
      '/api/v1/fields?level=L%00',
      '/api/v1/audit-logs?action=auth.login%00',
      '/api/v1/audit-logs?target_id=x%00y',
      '/api/v1/fields?q=ab%00c',
    ]) {
      assertValidationFailed(await get(url), url);
    }
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'adm\u0000in', password: 'whatever-password-1' },
    });
    assertValidationFailed(login, 'NUL in username');
    const refresh = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: 'abc\u0000def' },
    });
    assertValidationFailed(refresh, 'NUL in refresh token');
  });
});
