/**
 * API tokens (`flk_…`): created and shown once, used as a bearer wherever an access token is, scoped to a subset of the
 * user's permissions now, dead at once with a revoked token or a disabled or deleted user, 401 token_expired when
 * expired, never in the audit log nor the logs. Through the HTTP surface, on each database.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, createUser, json, problem, type TestApp } from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';
import { newApiToken, tokenHashKey } from '../../../src/modules/tokens/tokens.service.js';

interface Created {
  id: string;
  name: string;
  token: string;
  prefix: string;
  permissions: string[] | null;
  expires_at: string;
  created_at: string;
}
interface Listed {
  id: string;
  name: string;
  prefix: string;
  permissions: string[] | null;
  expires_at: string;
  last_used_at: string | null;
  created_at: string;
}

const DAY = 24 * 60 * 60 * 1000;

describeEachDatabase('API tokens', (kind) => {
  let t: TestApp;
  /** Every secret handed out, to look for in the audit log and the logs at the end. */
  const secrets: string[] = [];
  const vendor = keyPair();

  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
    const admin = await adminToken(t.app);
    // More users than the trial's 5, and a license that outlives the clock moves below.
    const imported = await importLicense(
      t.app,
      admin,
      issueLicense(vendor, t.clock.now(), {
        sku_tier: 'enterprise',
        expires_at: new Date(t.clock.now().getTime() + 3650 * DAY).toISOString(),
        quotas: { max_datasources: null, max_users: null },
      }),
    );
    assert.equal(imported.statusCode, 200);
  });
  after(async () => t.close());

  const create = (token: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/tokens', headers: bearer(token), payload });
  const list = (token: string, userId?: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/tokens${userId ? `?user_id=${userId}` : ''}`, headers: bearer(token) });
  const revoke = (token: string, id: string) =>
    t.app.inject({ method: 'DELETE', url: `/api/v1/tokens/${id}`, headers: bearer(token) });
  const me = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
  const fields = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(token) });
  const users = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(token) });

  async function newToken(token: string, payload: Record<string, unknown> = {}): Promise<Created> {
    const response = await create(token, { name: 'script', expires_in_days: 30, ...payload });
    assert.equal(response.statusCode, 201, response.body);
    const created = json<Created>(response);
    secrets.push(created.token);
    return created;
  }

  it('creates a token shown once; it authenticates an API call, which sets last_used_at; lists never show the secret', async () => {
    const user = await createUser(t.app, ['operator']);
    const response = await create(user.token, {
      name: 'nightly scanner',
      expires_in_days: 7,
      permissions: ['field:read'],
    });
    assert.equal(response.statusCode, 201);
    const created = json<Created>(response);
    secrets.push(created.token);
    assert.match(created.token, /^flk_[0-9A-Za-z]{32}$/);
    assert.equal(created.prefix, created.token.slice(0, 10));
    assert.equal(created.name, 'nightly scanner');
    assert.deepEqual(created.permissions, ['field:read']);
    assert.equal(Date.parse(created.expires_at) - Date.parse(created.created_at), 7 * DAY);
    assert.deepEqual(Object.keys(created).sort(), [
      'created_at',
      'expires_at',
      'id',
      'name',
      'permissions',
      'prefix',
      'token',
    ]);

    const before = json<{ items: Listed[] }>(await list(user.token)).items;
    assert.equal(before.length, 1);
    assert.equal(before[0]?.last_used_at, null);

    const used = await fields(created.token);
    assert.equal(used.statusCode, 200, used.body);
    const identity = json<{ id: string; username: string; permissions: string[] }>(await me(created.token));
    assert.equal(identity.id, user.id);
    assert.equal(identity.username, user.username);
    assert.deepEqual(identity.permissions, ['field:read']);

    const listed = await list(user.token);
    assert.equal(listed.statusCode, 200);
    const items = json<{ items: Listed[] }>(listed).items;
    assert.equal(items.length, 1);
    assert.equal(items[0]?.last_used_at, t.clock.now().toISOString());
    assert.deepEqual(Object.keys(items[0] ?? {}).sort(), [
      'created_at',
      'expires_at',
      'id',
      'last_used_at',
      'name',
      'permissions',
      'prefix',
    ]);
    assert.ok(!listed.body.includes(created.token.slice(10)), 'the list holds no part of the secret beyond the prefix');

    // Stored as a keyed hash only.
    const row = await t.database.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.match(row.token_hash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(row).includes(created.token.slice(10)));
  });

  it('records a use at most once a minute', async () => {
    const user = await createUser(t.app, ['observer']);
    const created = await newToken(user.token);
    assert.equal((await fields(created.token)).statusCode, 200);
    const first = t.clock.now().toISOString();
    t.clock.advance(30_000);
    assert.equal((await fields(created.token)).statusCode, 200);
    const lastUsed = async () =>
      (
        await t.database.db
          .selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', created.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    assert.equal(await lastUsed(), first, 'not written again within the minute');
    t.clock.advance(31_000);
    assert.equal((await fields(created.token)).statusCode, 200);
    assert.equal(await lastUsed(), t.clock.now().toISOString());
  });

  it('a permission the token was not given is 403, even when the user holds it', async () => {
    const admin = await adminToken(t.app);
    const created = await newToken(admin, { permissions: ['field:read', 'datasource:read'] });
    assert.equal((await fields(created.token)).statusCode, 200);
    const denied = await users(created.token);
    assert.equal(denied.statusCode, 403);
    assert.equal(problem(denied).code, 'forbidden');
    assert.match(problem(denied).detail, /API token does not grant the permission user:read/);
    assert.equal((await users(admin)).statusCode, 200, 'the user itself still may');
    const rule = await t.app.inject({
      method: 'POST',
      url: '/api/v1/classification/rules',
      headers: bearer(created.token),
      payload: {},
    });
    assert.equal(rule.statusCode, 403, 'refused before the body is even read');
  });

  it('validates a creation: permissions within the caller’s own, known names, name and expiry bounds; nothing is written', async () => {
    const user = await createUser(t.app, ['observer']);
    const count = async () =>
      Number(
        (
          await t.database.db
            .selectFrom('api_tokens')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', '=', user.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const notHeld = await create(user.token, {
      name: 'x',
      expires_in_days: 1,
      permissions: ['field:read', 'user:write'],
    });
    assert.equal(notHeld.statusCode, 403);
    assert.match(problem(notHeld).detail, /you do not hold user:write/);
    for (const payload of [
      { name: 'x', expires_in_days: 1, permissions: ['field:read', 'field:fly'] },
      { name: 'x', expires_in_days: 1, permissions: [] },
      { name: '', expires_in_days: 1 },
      { name: 'n'.repeat(101), expires_in_days: 1 },
      { name: 'x', expires_in_days: 0 },
      { name: 'x', expires_in_days: 366 },
      { name: 'x', expires_in_days: 1.5 },
      { name: 'x' },
      { name: 'bad\nname', expires_in_days: 1 },
      { name: 'x', expires_in_days: 1, user_id: randomUUID() },
    ]) {
      const response = await create(user.token, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(problem(response).code, 'validation_failed');
    }
    assert.equal((await create(user.token, { name: 'n'.repeat(100), expires_in_days: 365 })).statusCode, 201);
    assert.equal(await count(), 1);
  });

  it("follows the user's roles now: a role taken away is gone from the token at once; omitted permissions follow the roles", async () => {
    const admin = await adminToken(t.app);
    const user = await createUser(t.app, ['admin']);
    const all = await newToken(user.token);
    assert.equal(all.permissions, null);
    const scoped = await newToken(user.token, { permissions: ['user:read', 'field:read'] });
    assert.equal((await users(all.token)).statusCode, 200);
    assert.equal((await users(scoped.token)).statusCode, 200);

    const demoted = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(admin),
      payload: { roles: ['observer'] },
    });
    assert.equal(demoted.statusCode, 200);
    assert.equal((await users(all.token)).statusCode, 403);
    assert.equal((await users(scoped.token)).statusCode, 403);
    assert.equal((await fields(scoped.token)).statusCode, 200, 'what the user still holds keeps working');
    assert.deepEqual(json<{ permissions: string[] }>(await me(scoped.token)).permissions, ['field:read']);
    assert.deepEqual(json<{ permissions: string[] }>(await me(all.token)).permissions, [
      'field:read',
      'datasource:read',
      'scan:read',
    ]);

    // Given back, the token was never given more than it asked for.
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${user.id}`,
          headers: bearer(admin),
          payload: { roles: ['admin'] },
        })
      ).statusCode,
      200,
    );
    assert.equal((await users(scoped.token)).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/audit-logs', headers: bearer(scoped.token) })).statusCode,
      403,
    );
  });

  it('a disabled user’s tokens are refused at once (while disabled); a deleted user’s are gone', async () => {
    const admin = await adminToken(t.app);
    const user = await createUser(t.app, ['operator']);
    const created = await newToken(user.token);
    assert.equal((await fields(created.token)).statusCode, 200);
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${user.id}`,
          headers: bearer(admin),
          payload: { disabled: true },
        })
      ).statusCode,
      200,
    );
    const refused = await fields(created.token);
    assert.equal(refused.statusCode, 401);
    assert.equal(problem(refused).code, 'unauthorized');
    assert.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"');
    assert.equal(
      (
        await t.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${user.id}`,
          headers: bearer(admin),
          payload: { disabled: false },
        })
      ).statusCode,
      200,
    );
    assert.equal(
      (await fields(created.token)).statusCode,
      200,
      'enabled again: its tokens work again (revoke them to end them for good)',
    );

    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: bearer(admin) })).statusCode,
      204,
    );
    const gone = await fields(created.token);
    assert.equal(gone.statusCode, 401);
    assert.equal(problem(gone).code, 'unauthorized');
    assert.equal(
      await t.database.db.selectFrom('api_tokens').select('id').where('id', '=', created.id).executeTakeFirst(),
      undefined,
    );
  });

  it('a revoked token is refused at once; revoking is for the owner or user:write, and audited without the secret', async () => {
    const owner = await createUser(t.app, ['dba']);
    const other = await createUser(t.app, ['operator']);
    const created = await newToken(owner.token, { name: 'to revoke', permissions: ['field:read'] });
    assert.equal((await fields(created.token)).statusCode, 200);

    const notYours = await revoke(other.token, created.id);
    assert.equal(notYours.statusCode, 404, "another user's token is not found");
    assert.equal((await fields(created.token)).statusCode, 200);

    assert.equal((await revoke(owner.token, created.id)).statusCode, 204);
    const refused = await fields(created.token);
    assert.equal(refused.statusCode, 401);
    assert.equal(problem(refused).code, 'unauthorized');
    assert.equal((await revoke(owner.token, created.id)).statusCode, 404);
    assert.equal(json<{ items: Listed[] }>(await list(owner.token)).items.length, 0);

    // An admin (user:write) revokes another user's token.
    const second = await newToken(owner.token);
    const admin = await createUser(t.app, ['admin']);
    assert.equal((await revoke(admin.token, second.id)).statusCode, 204);
    assert.equal((await fields(second.token)).statusCode, 401);

    // ...but not a superadmin's.
    const root = await adminToken(t.app);
    const rootToken = await newToken(root);
    const denied = await revoke(admin.token, rootToken.id);
    assert.equal(denied.statusCode, 403);
    assert.equal((await fields(rootToken.token)).statusCode, 200);

    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'target_id', 'actor_id', 'details'])
      .where('target_type', '=', 'api_token')
      .where('target_id', 'in', [created.id, second.id])
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      entries.map((e) => [e.action, e.target_id, e.actor_id]),
      [
        ['token.created', created.id, owner.id],
        ['token.revoked', created.id, owner.id],
        ['token.created', second.id, owner.id],
        ['token.revoked', second.id, admin.id],
      ],
    );
    const details = JSON.parse(entries[0]?.details ?? '{}') as Record<string, unknown>;
    assert.deepEqual(details, {
      name: 'to revoke',
      prefix: created.prefix,
      permissions: ['field:read'],
      expires_at: created.expires_at,
      user_id: owner.id,
    });
  });

  it('a second instance on the same database accepts the token (same derived key) and refuses it at once once revoked on the first', async () => {
    const user = await createUser(t.app, ['observer']);
    const created = await newToken(user.token);
    const second = await buildTestApp(kind, {
      testDatabase: t.testDatabase,
      clock: t.clock,
      env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem },
    });
    try {
      const onSecond = () =>
        second.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(created.token) });
      assert.equal((await onSecond()).statusCode, 200);
      assert.equal((await onSecond()).statusCode, 200);
      assert.equal((await revoke(user.token, created.id)).statusCode, 204);
      const refused = await onSecond();
      assert.equal(refused.statusCode, 401);
      assert.equal(problem(refused).code, 'unauthorized');
    } finally {
      await second.close();
    }
  });

  it('an expired token is 401 token_expired', async () => {
    const user = await createUser(t.app, ['observer']);
    const created = await newToken(user.token, { expires_in_days: 1 });
    t.clock.advance(DAY - 1000);
    assert.equal((await fields(created.token)).statusCode, 200);
    t.clock.advance(1000);
    const expired = await fields(created.token);
    assert.equal(expired.statusCode, 401);
    assert.equal(problem(expired).code, 'token_expired');
    assert.equal(expired.headers['www-authenticate'], 'Bearer error="invalid_token", error_description="expired"');
  });

  it('a malformed or unknown API token is 401 problem+json', async () => {
    const genuine = await newToken(await adminToken(t.app));
    for (const token of [
      'flk_',
      'flk_short',
      `flk_${'a'.repeat(33)}`,
      `flk_${'a'.repeat(31)}-`,
      `${genuine.token.slice(0, -1)}${genuine.token.endsWith('A') ? 'B' : 'A'}`,
      genuine.token.toUpperCase().replace('FLK_', 'flk_'),
    ]) {
      if (token === genuine.token) continue;
      const response = await fields(token);
      assert.equal(response.statusCode, 401, token);
      assert.equal(problem(response).code, 'unauthorized');
      assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"');
    }
    const spaced = await t.app.inject({
      method: 'GET',
      url: '/api/v1/fields',
      headers: { authorization: `Bearer ${genuine.token} x` },
    });
    assert.equal(spaced.statusCode, 401);
    assert.equal(problem(spaced).code, 'unauthorized');
  });

  it('an API token cannot create tokens, but lists and revokes its user’s', async () => {
    const user = await createUser(t.app, ['operator']);
    const created = await newToken(user.token);
    const refused = await create(created.token, { name: 'child', expires_in_days: 365 });
    assert.equal(refused.statusCode, 403);
    assert.match(problem(refused).detail, /cannot create API tokens/);
    const listed = json<{ items: Listed[] }>(await list(created.token)).items;
    assert.deepEqual(
      listed.map((i) => i.id),
      [created.id],
    );
    assert.equal((await revoke(created.token, created.id)).statusCode, 204);
    assert.equal((await fields(created.token)).statusCode, 401);
  });

  it("lists another user's tokens only with user:read; 404 for an unknown user", async () => {
    const user = await createUser(t.app, ['dba']);
    const other = await createUser(t.app, ['observer']);
    const created = await newToken(user.token);
    const denied = await list(other.token, user.id);
    assert.equal(denied.statusCode, 403);
    assert.equal(problem(denied).code, 'forbidden');
    const admin = await adminToken(t.app);
    const seen = json<{ items: Listed[] }>(await list(admin, user.id)).items;
    assert.deepEqual(
      seen.map((i) => i.id),
      [created.id],
    );
    assert.equal((await list(admin, randomUUID())).statusCode, 404);
    assert.equal((await list(admin, 'not-a-uuid')).statusCode, 400);
    // A token of the admin without user:read cannot either.
    const narrow = await newToken(admin, { permissions: ['field:read'] });
    assert.equal((await list(narrow.token, user.id)).statusCode, 403);
  });

  it('holds at most 50 tokens per user (409)', async () => {
    const user = await createUser(t.app, ['observer']);
    for (let i = 0; i < 50; i++) await newToken(user.token, { name: `t${i}` });
    const refused = await create(user.token, { name: 'one too many', expires_in_days: 1 });
    assert.equal(refused.statusCode, 409);
    assert.equal(problem(refused).code, 'conflict');
    const first = json<{ items: Listed[] }>(await list(user.token)).items[0];
    assert.ok(first);
    assert.equal((await revoke(user.token, first.id)).statusCode, 204);
    assert.equal((await create(user.token, { name: 'room again', expires_in_days: 1 })).statusCode, 201);
  });

  it('no secret is ever in the audit log or the logs', async () => {
    // A failing request with a token logs an error line too.
    const user = await createUser(t.app, ['observer']);
    const created = await newToken(user.token);
    assert.equal((await users(created.token)).statusCode, 403);
    assert.ok(secrets.length > 50);
    const rows = await t.database.db.selectFrom('audit_log').selectAll().execute();
    assert.ok(rows.filter((r) => r.action === 'token.created').length > 50);
    const audit = JSON.stringify(rows);
    const logs = t.logs.join('');
    for (const secret of secrets) {
      const body = secret.slice(4);
      assert.ok(!audit.includes(body), 'a secret in the audit log');
      assert.ok(!logs.includes(body), 'a secret in the logs');
    }
    assert.ok(logs.includes('request completed'), 'the logs were captured');
  });
});

it('new tokens are flk_ + 32 base62 characters, all distinct, every character used; the hash key is an HKDF subkey, not the signing key', () => {
  const tokens = Array.from({ length: 2000 }, () => newApiToken());
  assert.equal(new Set(tokens).size, tokens.length);
  for (const token of tokens) assert.match(token, /^flk_[0-9A-Za-z]{32}$/);
  const counts = new Map<string, number>();
  for (const token of tokens) for (const c of token.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
  assert.equal(counts.size, 62);
  // 64,000 characters over 62 symbols: ~1032 each; a biased draw (e.g. byte % 62 without rejection) skews the first 8.
  for (const [c, n] of counts) assert.ok(n > 850 && n < 1220, `${c}: ${n}`);
  const signingKey = new Uint8Array(32).fill(7);
  const key = tokenHashKey(signingKey);
  assert.equal(key.length, 32);
  assert.notDeepEqual(new Uint8Array(key), signingKey);
  assert.deepEqual(tokenHashKey(signingKey), key, 'deterministic: every instance derives the same key');
  assert.notDeepEqual(tokenHashKey(new Uint8Array(32).fill(8)), key);
});

describeEachDatabase('API tokens in the logs', (kind) => {
  it('at trace level, no line carries a token: created, used (header and query string), refused, revoked, or a malformed one', async () => {
    const t = await buildTestApp(kind, { env: { LOG_LEVEL: 'trace' } });
    try {
      const admin = await adminToken(t.app);
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/tokens',
        headers: bearer(admin),
        payload: { name: 'logged?', expires_in_days: 1, permissions: ['field:read'] },
      });
      assert.equal(created.statusCode, 201);
      const { id, token } = json<Created>(created);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(token) })).statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(token) })).statusCode,
        403,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/api/v1/fields?access_token=${token}` })).statusCode,
        401,
      );
      const unknown = `flk_${'Z'.repeat(32)}`;
      const malformed = `flk_${'Y'.repeat(20)}`;
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(unknown) })).statusCode,
        401,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(malformed) })).statusCode,
        401,
      );
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: `/api/v1/tokens/${id}`, headers: bearer(token) })).statusCode,
        204,
      );
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/fields', headers: bearer(token) })).statusCode,
        401,
      );
      t.app.log.info({ body: { token }, headers: { authorization: `Bearer ${token}` } }, 'a line that would carry one');
      const logs = t.logs.join('');
      assert.ok(logs.includes('/api/v1/tokens'), 'the requests were logged');
      for (const secret of [token, token.slice(4), unknown, malformed])
        assert.ok(!logs.includes(secret), t.logs.find((l) => l.includes(secret))?.slice(0, 400));
    } finally {
      await t.close();
    }
  });
});
