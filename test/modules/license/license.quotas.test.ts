import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { DAY, importLicense, issueLicense, keyPair } from './license.helpers.js';

const vendor = keyPair();
const env = { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem };
const HOUR = 60 * 60 * 1000;

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

async function createDatasource(t: TestApp, token: string, name = uniqueName('ds')) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/datasources',
    headers: bearer(token),
    payload: { name, type: 'postgresql' },
  });
}

async function postUser(t: TestApp, token: string, username = uniqueName('user')) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/users',
    headers: bearer(token),
    payload: {
      username,
      password: 'a-long-enough-passphrase-42',
      email: `${username}@example.com`,
      roles: ['observer'],
    },
  });
}

async function status(t: TestApp, token: string) {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/license/status', headers: bearer(token) });
  assert.equal(response.statusCode, 200, response.body);
  return json<{
    sku_tier: string;
    computed_status: string;
    is_expired: boolean;
    days_remaining: number | null;
    usage: { datasources: number; users: number };
  }>(response);
}

describeEachDatabase('license quotas', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind, { env });
    token = await adminToken(t.app);
  });
  after(async () => t.close());

  it('refuses the 4th data source on the trial, and counts again once an idle one is deleted', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await createDatasource(t, token);
      assert.equal(response.statusCode, 201, response.body);
      ids.push(json<{ id: string }>(response).id);
    }
    const refused = await createDatasource(t, token);
    assert.equal(refused.statusCode, 403);
    const body = problem(refused);
    assert.equal(body.code, 'quota_exceeded');
    assert.match(body.detail, /max_datasources/);
    assert.match(body.detail, /\b3\b/);
    assert.equal((await status(t, token)).usage.datasources, 3);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/datasources/${ids[0]}`,
      headers: bearer(token),
    });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await createDatasource(t, token)).statusCode, 201);
    assert.equal((await createDatasource(t, token)).statusCode, 403);
  });

  it('refuses the 6th user on the trial, and counts again once a user is disabled; re-enabling is refused at the quota', async () => {
    const users = [];
    for (let i = 0; i < 4; i += 1) users.push(await createUser(t.app, ['observer'], { token }));
    const refused = await postUser(t, token);
    assert.equal(refused.statusCode, 403);
    const body = problem(refused);
    assert.equal(body.code, 'quota_exceeded');
    assert.match(body.detail, /max_users/);
    assert.match(body.detail, /\b5\b/);

    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${users[0]?.id}`,
      headers: bearer(token),
      payload: { disabled: true },
    });
    assert.equal(disabled.statusCode, 200);
    assert.equal((await postUser(t, token)).statusCode, 201);
    const reenabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${users[0]?.id}`,
      headers: bearer(token),
      payload: { disabled: false },
    });
    assert.equal(reenabled.statusCode, 403);
    assert.equal(problem(reenabled).code, 'quota_exceeded');
  });

  it('clears the quota when a larger license is imported, and a smaller one brings it back', async () => {
    const larger = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'pro',
      quotas: { max_datasources: 5, max_users: 10 },
    });
    assert.equal((await importLicense(t.app, token, larger)).statusCode, 200);
    assert.equal((await createDatasource(t, token)).statusCode, 201);
    assert.equal((await postUser(t, token)).statusCode, 201);

    const smaller = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'lite',
      quotas: { max_datasources: 1, max_users: 2 },
    });
    assert.equal((await importLicense(t.app, token, smaller)).statusCode, 200);
    assert.equal(problem(await createDatasource(t, token)).code, 'quota_exceeded');
    assert.equal(problem(await postUser(t, token)).code, 'quota_exceeded');
    // Existing resources above the quota stay usable.
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) });
    assert.equal(list.statusCode, 200);
    assert.equal(json<{ items: unknown[] }>(list).items.length, 4);

    const unlimited = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'enterprise',
      quotas: { max_datasources: null, max_users: null },
    });
    assert.equal((await importLicense(t.app, token, unlimited)).statusCode, 200);
    assert.equal((await createDatasource(t, token)).statusCode, 201);
  });
});

describeEachDatabase('license quota under concurrency', (kind) => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await buildTestApp(kind, { env });
    token = await adminToken(t.app);
    // admin + 1 = 2 users, 2 data sources: one below each quota.
    const file = issueLicense(vendor, t.clock.now(), { sku_tier: 'pro', quotas: { max_datasources: 3, max_users: 3 } });
    assert.equal((await importLicense(t.app, token, file)).statusCode, 200);
    await createUser(t.app, ['observer'], { token });
    for (let i = 0; i < 2; i += 1) assert.equal((await createDatasource(t, token)).statusCode, 201);
  });
  after(async () => t.close());

  it('creates exactly one of 20 concurrent data sources at quota − 1', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => createDatasource(t, token)));
    const codes = responses.map((r) => r.statusCode).sort();
    assert.equal(codes.filter((c) => c === 201).length, 1, codes.join(','));
    assert.equal(codes.filter((c) => c === 403).length, 19);
    assert.ok(responses.filter((r) => r.statusCode === 403).every((r) => problem(r).code === 'quota_exceeded'));
    assert.equal((await status(t, token)).usage.datasources, 3);
  });

  it('creates exactly one of 20 concurrent users at quota − 1', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => postUser(t, token)));
    const codes = responses.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 201).length, 1, codes.join(','));
    assert.equal(codes.filter((c) => c === 403).length, 19);
    assert.equal((await status(t, token)).usage.users, 3);
  });
});

describeEachDatabase('license expiry and clock rollback', (kind) => {
  it('expires the trial after 30 days: creation blocked with license_inactive, reading still works', async () => {
    const t = await buildTestApp(kind, { env });
    try {
      let token = await adminToken(t.app);
      const user = await createUser(t.app, ['observer'], { token });
      assert.equal((await createDatasource(t, token)).statusCode, 201);

      t.clock.advance(29 * DAY + 1);
      token = await adminToken(t.app);
      const lastDay = await status(t, token);
      assert.equal(lastDay.computed_status, 'active');
      assert.equal(lastDay.days_remaining, 1);

      t.clock.advance(DAY);
      token = await adminToken(t.app);
      const expired = await status(t, token);
      assert.equal(expired.computed_status, 'expired');
      assert.equal(expired.is_expired, true);
      assert.equal(expired.days_remaining, 0);

      for (const response of [await postUser(t, token), await createDatasource(t, token)]) {
        assert.equal(response.statusCode, 403);
        const body = problem(response);
        assert.equal(body.code, 'license_inactive');
        assert.match(body.detail, /expired/);
      }
      const reenable = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/users/${user.id}`,
        headers: bearer(token),
        payload: { disabled: true },
      });
      assert.equal(reenable.statusCode, 200, 'disabling needs no license');
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(token) })).statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/datasources', headers: bearer(token) })).statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) })).statusCode,
        200,
      );

      // A renewed license ends it.
      const renewed = issueLicense(vendor, t.clock.now(), { sku_tier: 'pro' });
      assert.equal((await importLicense(t.app, token, renewed)).statusCode, 200);
      assert.equal((await status(t, token)).computed_status, 'active');
      assert.equal((await createDatasource(t, token)).statusCode, 201);
    } finally {
      await t.close();
    }
  });

  it('expires an imported license at its expires_at', async () => {
    const t = await buildTestApp(kind, { env });
    try {
      let token = await adminToken(t.app);
      const expiresAt = new Date(t.clock.now().getTime() + 10 * DAY);
      const file = issueLicense(vendor, t.clock.now(), { sku_tier: 'enterprise', expires_at: expiresAt.toISOString() });
      assert.equal((await importLicense(t.app, token, file)).statusCode, 200);
      t.clock.set(new Date(expiresAt.getTime() - 1));
      token = await adminToken(t.app);
      assert.deepEqual(
        (({ computed_status, days_remaining }) => ({ computed_status, days_remaining }))(await status(t, token)),
        { computed_status: 'active', days_remaining: 1 },
      );
      t.clock.set(expiresAt);
      token = await adminToken(t.app);
      const body = await status(t, token);
      assert.equal(body.computed_status, 'expired');
      assert.equal(body.is_expired, true);
      assert.equal(body.days_remaining, 0);
      assert.equal(body.sku_tier, 'enterprise');
      assert.equal(problem(await postUser(t, token)).code, 'license_inactive');
    } finally {
      await t.close();
    }
  });

  it('treats a clock set back more than 24 h behind the latest time seen as expired, and tolerates up to 24 h', async () => {
    const t = await buildTestApp(kind, { env });
    try {
      const start = t.clock.now().getTime();
      let token = await adminToken(t.app);
      t.clock.set(new Date(start + 10 * DAY));
      token = await adminToken(t.app);
      assert.equal((await status(t, token)).computed_status, 'active'); // the service has now seen day 10

      t.clock.set(new Date(start + 9 * DAY - HOUR)); // 25 h back
      token = await adminToken(t.app);
      const rolledBack = await status(t, token);
      assert.equal(rolledBack.computed_status, 'expired');
      assert.equal(rolledBack.is_expired, true);
      assert.equal(rolledBack.days_remaining, 0);
      const refused = await createDatasource(t, token);
      assert.equal(problem(refused).code, 'license_inactive');
      assert.match(problem(refused).detail, /clock/);

      t.clock.set(new Date(start + 9 * DAY + HOUR)); // 23 h back: tolerated
      token = await adminToken(t.app);
      const tolerated = await status(t, token);
      assert.equal(tolerated.computed_status, 'active');
      assert.equal(tolerated.days_remaining, 21);
      assert.equal((await createDatasource(t, token)).statusCode, 201);
    } finally {
      await t.close();
    }
  });

  it('remembers the latest time seen across a restart, and refuses an import against a rolled-back clock', async () => {
    const t = await buildTestApp(kind, { env });
    const start = t.clock.now().getTime();
    t.clock.set(new Date(start + 5 * DAY));
    let token = await adminToken(t.app);
    await status(t, token);
    await t.app.close();
    await t.database.close();

    const restarted = await buildTestApp(kind, { env, testDatabase: t.testDatabase, clock: t.clock });
    try {
      t.clock.set(new Date(start + 2 * DAY));
      token = await adminToken(restarted.app);
      assert.equal((await status(restarted, token)).computed_status, 'expired');
      const file = issueLicense(vendor, new Date(start), { sku_tier: 'pro' });
      const response = await importLicense(restarted.app, token, file);
      assert.equal(response.statusCode, 400);
      assert.equal(problem(response).code, 'license_invalid');
      assert.match(problem(response).detail, /clock/);
      assert.equal((await status(restarted, token)).sku_tier, 'trial_mock');
    } finally {
      await restarted.close();
      await t.testDatabase.dispose();
    }
  });
});
