import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  ADMIN_PASSWORD,
  adminToken,
  bearer,
  buildTestApp,
  createUser,
  json,
  login,
  problem,
  type TestApp,
} from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { deleteUser, updateUser, userForTokenReader } from '../../../src/modules/users/users.repository.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';

describeEachDatabase('users', (kind) => {
  let t: TestApp;
  let admin: string;
  // These tests create more users than the trial's quota of 5: run them under an unlimited license.
  const vendor = keyPair();
  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
    admin = await adminToken(t.app);
    const imported = await importLicense(
      t.app,
      admin,
      issueLicense(vendor, t.clock.now(), {
        sku_tier: 'enterprise',
        quotas: { max_datasources: null, max_users: null },
      }),
    );
    assert.equal(imported.statusCode, 200);
  });
  after(async () => t.close());

  const post = (payload: Record<string, unknown>, token = admin) =>
    t.app.inject({ method: 'POST', url: '/api/v1/users', headers: bearer(token), payload });
  const patch = (id: string, payload: Record<string, unknown>, token = admin) =>
    t.app.inject({ method: 'PATCH', url: `/api/v1/users/${id}`, headers: bearer(token), payload });
  const me = (token: string) => t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });

  it('creates a user and lists it; the password is stored as Argon2id at OWASP parameters', async () => {
    const response = await post({
      username: 'Alice.Ops',
      password: 'a sufficiently long phrase',
      email: 'alice@example.com',
      roles: ['operator', 'observer'],
    });
    assert.equal(response.statusCode, 201);
    const user = json<{ id: string; username: string; roles: unknown; disabled: boolean; created_at: string }>(
      response,
    );
    assert.equal(user.username, 'Alice.Ops');
    assert.deepEqual(user.roles, [
      { role: 'operator', scope: 'global' },
      { role: 'observer', scope: 'global' },
    ]);
    assert.equal(user.disabled, false);
    assert.ok(!('password' in user) && !('password_hash' in user));
    const list = json<{ items: Array<{ username: string }> }>(
      await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(admin) }),
    );
    assert.ok(list.items.some((u) => u.username === 'Alice.Ops'));
    const row = await t.database.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const session = await login(t.app, 'alice.ops', 'a sufficiently long phrase');
    const identity = json<{ permissions: string[] }>(await me(session.access_token));
    assert.deepEqual(identity.permissions, ['field:read', 'field:review', 'datasource:read', 'scan:read']);
  });

  it('refuses a duplicate username regardless of case with 409', async () => {
    await createUser(t.app, ['observer'], { username: 'dup-user' });
    const response = await post({
      username: 'DUP-USER',
      password: 'another long passphrase',
      email: 'd@example.com',
      roles: ['observer'],
    });
    assert.equal(response.statusCode, 409);
    assert.equal(problem(response).code, 'conflict');
  });

  it('applies the password rules: 12–256 characters, any Unicode, no truncation, common ones refused', async () => {
    const attempt = (password: string, username: string) =>
      post({ username, password, email: `${username}@example.com`, roles: ['observer'] });
    const short = await attempt('elevenchars', 'pw-short');
    assert.equal(short.statusCode, 400);
    assert.deepEqual(
      problem(short).errors?.map((e) => e.path),
      ['/password'],
    );
    assert.equal((await attempt('password123456', 'pw-common')).statusCode, 400);
    assert.equal((await attempt('qwertyuiop123', 'pw-common2')).statusCode, 400);
    assert.equal((await attempt('aaaaaaaaaaaaaaaa', 'pw-repeat')).statusCode, 400);
    assert.equal((await attempt('x'.repeat(200) + 'y'.repeat(57), 'pw-long')).statusCode, 400);
    const emoji = '🔐🌍 correct horse battery staple ✨ ünïcödé phrase 🦄🦄🦄'.padEnd(64, '!');
    assert.equal((await attempt(emoji, 'pw-emoji')).statusCode, 201);
    assert.ok((await login(t.app, 'pw-emoji', emoji)).access_token);
    const truncated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'pw-emoji', password: emoji.slice(0, -1) },
    });
    assert.equal(truncated.statusCode, 401);
  });

  it('rejects unknown properties instead of assigning them', async () => {
    const response = await post({
      username: 'mass-assign',
      password: 'long enough passphrase',
      email: 'm@example.com',
      roles: ['observer'],
      disabled: false,
      token_version: 99,
    });
    assert.equal(response.statusCode, 400);
    assert.equal(
      await t.database.db.selectFrom('users').select('id').where('username_key', '=', 'mass-assign').executeTakeFirst(),
      undefined,
    );
  });

  it('disabling a user refuses its access token at once and revokes its sessions', async () => {
    const user = await createUser(t.app, ['operator']);
    const session = await login(t.app, user.username, user.password);
    assert.equal((await me(user.token)).statusCode, 200);
    assert.equal(
      (await me(user.token)).statusCode,
      200,
      'a second request (answered from what is remembered on SQLite)',
    );
    const response = await patch(user.id, { disabled: true });
    assert.equal(response.statusCode, 200);
    assert.equal(json<{ disabled: boolean }>(response).disabled, true);
    assert.equal((await me(user.token)).statusCode, 401);
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: session.refresh_token },
    });
    assert.equal(refreshed.statusCode, 401);
    const relogin = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: user.username, password: user.password },
    });
    assert.equal(relogin.statusCode, 401);
    assert.equal(problem(relogin).code, 'invalid_credentials');
  });

  it('a role change takes effect on the next request', async () => {
    const user = await createUser(t.app, ['admin']);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(user.token) })).statusCode,
      200,
    );
    assert.equal((await patch(user.id, { roles: ['observer'] })).statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(user.token) })).statusCode,
      401,
    );
    const fresh = await login(t.app, user.username, user.password);
    const denied = await t.app.inject({ method: 'GET', url: '/api/v1/users', headers: bearer(fresh.access_token) });
    assert.equal(denied.statusCode, 403);
    assert.equal(problem(denied).code, 'forbidden');
  });

  it('changing your own password needs the current one and ends your other sessions', async () => {
    const user = await createUser(t.app, ['admin']);
    const other = await login(t.app, user.username, user.password);
    const without = await patch(user.id, { password: 'a brand new passphrase' }, user.token);
    assert.equal(without.statusCode, 400);
    const ok = await patch(
      user.id,
      { password: 'a brand new passphrase', current_password: user.password },
      user.token,
    );
    assert.equal(ok.statusCode, 200);
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: other.refresh_token },
    });
    assert.equal(refreshed.statusCode, 401);
    assert.ok((await login(t.app, user.username, 'a brand new passphrase')).access_token);
  });

  it('only a superadmin grants or manages superadmin; the last superadmin stays', async () => {
    const adminUser = await createUser(t.app, ['admin']);
    const grant = await post(
      { username: 'wannabe', password: 'long enough passphrase', email: 'w@example.com', roles: ['superadmin'] },
      adminUser.token,
    );
    assert.equal(grant.statusCode, 403);
    const adminId = json<{ id: string }>(await me(admin)).id;
    assert.equal((await patch(adminId, { disabled: true }, adminUser.token)).statusCode, 403);
    const self = await patch(adminId, { roles: ['admin'] });
    assert.equal(self.statusCode, 409, 'the last superadmin cannot lose the role');
    const selfDelete = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${adminId}`,
      headers: bearer(admin),
    });
    assert.equal(selfDelete.statusCode, 409);
  });

  it('deleting a user ends its access at once; unknown and malformed ids are answered clearly', async () => {
    const user = await createUser(t.app, ['dba']);
    assert.equal((await me(user.token)).statusCode, 200);
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: bearer(admin) });
    assert.equal(deleted.statusCode, 204);
    assert.equal((await me(user.token)).statusCode, 401);
    const again = await t.app.inject({ method: 'DELETE', url: `/api/v1/users/${user.id}`, headers: bearer(admin) });
    assert.equal(again.statusCode, 404);
    assert.equal(problem(again).code, 'not_found');
    const bad = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/users/not-a-uuid',
      headers: bearer(admin),
      payload: { email: 'x@example.com' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(problem(bad).code, 'validation_failed');
  });

  it('the per-request user lookup sees every write made through its app instance, whether or not it caches rows', async () => {
    const user = await createUser(t.app, ['operator']);
    const reader = userForTokenReader(t.database.db, { cache: t.database.singleConnection });
    const other = userForTokenReader(t.database.db, { cache: t.database.singleConnection });
    const sid = '22222222-2222-4222-8222-222222222222';
    assert.equal(reader.remembered(user.id, sid), undefined, 'nothing is remembered before the first read');
    const first = await reader.read(user.id, sid);
    assert.equal(first?.disabled, 0);
    if (t.database.singleConnection) {
      assert.equal(
        reader.remembered(user.id, sid),
        first,
        'SQLite: the row just read is remembered, as the same object',
      );
      assert.equal(await reader.read(user.id, sid), first);
    } else {
      assert.equal(
        reader.remembered(user.id, sid),
        undefined,
        'PostgreSQL: nothing is remembered, every request reads the row',
      );
      assert.notEqual(await reader.read(user.id, sid), first, 'PostgreSQL: a second read goes to the database again');
    }
    await other.read(user.id, sid);
    // The users service announces its writes to its own instance's reader before writing.
    reader.invalidate();
    await updateUser(t.database.db, user.id, { disabled: 1 });
    assert.equal(reader.remembered(user.id, sid), undefined, 'the write made the remembered row stale');
    assert.equal((await reader.read(user.id, sid))?.disabled, 1);
    if (t.database.singleConnection) {
      assert.equal(reader.remembered(user.id, sid)?.disabled, 1, 'the re-read row is remembered');
      // Another instance's reader in the same process keeps its own generation: not made stale by this one's writes.
      assert.equal(other.remembered(user.id, sid)?.disabled, 0);
    }
    // Through the API: a disabled user's token is refused at the next request.
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(await adminToken(t.app)),
      payload: { disabled: false },
    });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = (await login(t.app, user.username, user.password)).access_token;
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(fresh) });
    assert.equal(me.statusCode, 200, 'enabled again through the users service: the cached disabled row is not used');
    const off = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${user.id}`,
      headers: bearer(await adminToken(t.app)),
      payload: { disabled: true },
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(fresh) })).statusCode,
      401,
    );
    await deleteUser(t.database.db, user.id);
  });

  it('answers a known token at once only while its user is unchanged (SQLite), never on PostgreSQL', async () => {
    const user = await createUser(t.app, ['admin']);
    const auth = t.app.services.auth;
    assert.equal((await me(user.token)).statusCode, 200);
    const remembered = auth.rememberedPrincipal(user.token);
    if (t.database.singleConnection) {
      assert.deepEqual(remembered && { ...remembered }, {
        id: user.id,
        username: user.username,
        email: `${user.username}@example.com`,
        roles: ['admin'],
      });
      assert.equal(auth.rememberedPrincipal(user.token), remembered, 'the same principal, not rebuilt per request');
    } else {
      assert.equal(remembered, undefined);
    }
    assert.equal(
      auth.rememberedPrincipal(`${user.token}x`),
      undefined,
      'a token never verified is not answered at once',
    );
    for (const change of [{ email: 'renamed@example.com' }, { roles: ['observer'] }, { disabled: true }]) {
      assert.equal((await patch(user.id, change)).statusCode, 200);
      assert.equal(auth.rememberedPrincipal(user.token), undefined, `after ${JSON.stringify(change)}`);
      if ('email' in change) {
        const body = json<{ email: string }>(await me(user.token));
        assert.equal(body.email, 'renamed@example.com', 'the next request sees the new email');
        if (t.database.singleConnection)
          assert.equal(auth.rememberedPrincipal(user.token)?.email, 'renamed@example.com');
      } else {
        assert.equal(
          (await me(user.token)).statusCode,
          401,
          `the next request after ${JSON.stringify(change)} is refused`,
        );
        assert.equal(auth.rememberedPrincipal(user.token), undefined);
      }
    }
  });

  if (kind === 'postgres') {
    it('PostgreSQL, two instances: disabling a user through one refuses its token on the other at the next request', async () => {
      const other = await buildTestApp(kind, {
        testDatabase: t.testDatabase,
        env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem },
      });
      try {
        const user = await createUser(t.app, ['operator']);
        const meOn = (app: TestApp['app']) =>
          app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(user.token) });
        assert.equal((await meOn(other.app)).statusCode, 200, 'instance B accepts the token instance A issued');
        assert.equal((await meOn(other.app)).statusCode, 200, 'and again, once it has verified it');
        assert.equal((await patch(user.id, { disabled: true })).statusCode, 200, 'disabled through instance A');
        const refused = await meOn(other.app);
        assert.equal(refused.statusCode, 401, 'instance B refuses the token on the very next request');
        assert.equal(problem(refused).code, 'unauthorized');
        assert.equal((await meOn(t.app)).statusCode, 401);

        // Both instances run in this test process and share its record of writes to users; a write by another process
        // is one this process never sees. Such a write, through a connection of its own, must be seen all the same.
        const second = await createUser(t.app, ['operator']);
        const secondMe = () =>
          other.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(second.token) });
        assert.equal((await secondMe()).statusCode, 200);
        assert.equal((await secondMe()).statusCode, 200);
        const elsewhere = t.testDatabase.open();
        try {
          await elsewhere.db.updateTable('users').set({ disabled: 1 }).where('id', '=', second.id).execute();
        } finally {
          await elsewhere.close();
        }
        assert.equal(
          (await secondMe()).statusCode,
          401,
          'a user disabled by another process is refused on the next request',
        );
      } finally {
        await other.close();
      }
    });
  }

  it('records user changes in the audit log without secrets', async () => {
    const rows = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', 'like', 'user.%')
      .execute();
    const actions = new Set(rows.map((r) => r.action));
    for (const action of ['user.created', 'user.updated', 'user.deleted']) assert.ok(actions.has(action), action);
    assert.ok(rows.every((r) => !r.details.includes('passphrase')));
  });

  it('never writes a password or token to the logs', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: session.refresh_token },
    });
    await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(session.access_token) });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'a-wrong-secret-guess' },
    });
    const logs = t.logs.join('');
    assert.ok(logs.length > 0);
    for (const secret of [
      ADMIN_PASSWORD,
      session.access_token,
      session.refresh_token,
      'a-wrong-secret-guess',
      'a sufficiently long phrase',
      admin,
    ]) {
      assert.ok(!logs.includes(secret), `a secret leaked into the logs: ${secret.slice(0, 8)}…`);
    }
  });
});
