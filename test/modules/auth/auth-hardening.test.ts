/**
 * Regression tests of the attack-minded review: parallel guesses cannot get past the failed-login limit, logout and
 * refresh-token reuse end the session's access tokens at once (on every instance), and no log line at trace level
 * holds a password or token.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SignJWT } from 'jose';
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
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';

function attempt(t: TestApp, username: string, password: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
}

async function failedChecks(t: TestApp, username: string): Promise<number> {
  const rows = await t.database.db
    .selectFrom('audit_log')
    .select('details')
    .where('action', '=', 'auth.login_failed')
    .execute();
  return rows.filter((row) => (JSON.parse(row.details) as { username?: string }).username === username).length;
}

function tally(responses: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const response of responses) counts[response.statusCode] = (counts[response.statusCode] ?? 0) + 1;
  return counts;
}

describeEachDatabase('auth hardening: failed-login limit under parallel guesses', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('40 parallel guesses, the right one among them, check at most 10 passwords before 429', async () => {
    const user = await createUser(t.app, ['observer']);
    const guesses = Array.from({ length: 40 }, (_, i) => (i === 39 ? user.password : `wrong-guess-number-${i}-xx`));
    const responses = await Promise.all(guesses.map((password) => attempt(t, user.username, password)));
    const counts = tally(responses);
    assert.equal((counts[401] ?? 0) + (counts[200] ?? 0), 10, `checked passwords: ${JSON.stringify(counts)}`);
    assert.equal(counts[429], 30, JSON.stringify(counts));
    for (const response of responses.filter((r) => r.statusCode === 429)) {
      assert.equal(problem(response).code, 'rate_limited');
      assert.ok(Number(response.headers['retry-after']) >= 1);
    }
    assert.equal(await failedChecks(t, user.username), counts[401]);
    if (counts[200] === undefined) {
      // The right guess came after the lock: it is refused like the others, without a password check.
      const locked = await attempt(t, user.username, user.password);
      assert.equal(locked.statusCode, 429);
      assert.equal(await failedChecks(t, user.username), 10);
    }
  });

  it('an unknown username is throttled the same way, after 10 checks', async () => {
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => attempt(t, 'nobody-by-this-name', `wrong-guess-number-${i}-xx`)),
    );
    assert.deepEqual(tally(responses), { 401: 10, 429: 15 });
  });

  it('parallel logins with the right password all succeed (they wait their turn, none is refused)', async () => {
    const user = await createUser(t.app, ['observer']);
    const responses = await Promise.all(Array.from({ length: 24 }, () => attempt(t, user.username, user.password)));
    assert.deepEqual(tally(responses), { 200: 24 });
    assert.equal(await failedChecks(t, user.username), 0);
  });

  it('a correct password releases the streak: the next failures count from zero', async () => {
    const user = await createUser(t.app, ['observer']);
    for (let i = 0; i < 9; i++)
      assert.equal((await attempt(t, user.username, `wrong-guess-number-${i}-xx`)).statusCode, 401);
    assert.equal((await attempt(t, user.username, user.password)).statusCode, 200);
    const after = await Promise.all(
      Array.from({ length: 12 }, (_, i) => attempt(t, user.username, `wrong-again-number-${i}-xx`)),
    );
    assert.deepEqual(tally(after), { 401: 10, 429: 2 });
  });

  if (kind === 'postgres') {
    it('a burst over two instances sharing one database checks at most 10 passwords', async () => {
      const second = await buildTestApp(kind, { testDatabase: t.testDatabase });
      try {
        const user = await createUser(t.app, ['observer']);
        const responses = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            attempt(i % 2 === 0 ? t : second, user.username, `wrong-guess-number-${i}-xx`),
          ),
        );
        assert.deepEqual(tally(responses), { 401: 10, 429: 50 });
        assert.equal(await failedChecks(t, user.username), 10);
      } finally {
        await second.close();
      }
    });
  }
});

async function me(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
}

describeEachDatabase('auth hardening: ending a session ends its access tokens at once', (kind) => {
  let t: TestApp;
  let second: TestApp | undefined;
  before(async () => {
    t = await buildTestApp(kind);
    // Several instances share PostgreSQL only (SQLite serves one instance).
    if (kind === 'postgres') second = await buildTestApp(kind, { testDatabase: t.testDatabase });
  });
  after(async () => {
    await second?.close();
    await t.close();
  });

  it('logout: the access token is refused at once, other sessions keep working', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    const other = await login(t.app, 'admin', ADMIN_PASSWORD);
    // Used first, so a remembered verification would answer if revocation were not checked.
    assert.equal((await me(t, session.access_token)).statusCode, 200);
    assert.equal((await me(t, session.access_token)).statusCode, 200);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      payload: { refresh_token: session.refresh_token },
    });
    assert.equal(out.statusCode, 204);
    const refused = await me(t, session.access_token);
    assert.equal(refused.statusCode, 401);
    assert.equal(problem(refused).code, 'unauthorized');
    assert.equal(refused.headers['www-authenticate'], 'Bearer error="invalid_token"');
    assert.equal((await me(t, other.access_token)).statusCode, 200);
  });

  it('refresh-token reuse: every access token of the session is refused at once', async () => {
    const first = await login(t.app, 'admin', ADMIN_PASSWORD);
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: first.refresh_token },
    });
    assert.equal(rotated.statusCode, 200);
    const next = json<{ access_token: string }>(rotated);
    assert.equal((await me(t, first.access_token)).statusCode, 200);
    assert.equal((await me(t, next.access_token)).statusCode, 200);
    const reuse = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: first.refresh_token },
    });
    assert.equal(reuse.statusCode, 401);
    assert.equal((await me(t, first.access_token)).statusCode, 401);
    assert.equal((await me(t, next.access_token)).statusCode, 401);
  });

  it('a genuinely signed token that names no session, or a session of another user, is refused', async () => {
    const secret = 'a-test-signing-key-of-at-least-32-bytes!';
    const keyed = await buildTestApp(kind, { env: { FIELDLENS_JWT_SECRET: secret } });
    try {
      const session = await login(keyed.app, 'admin', ADMIN_PASSWORD);
      const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1]!, 'base64url').toString()) as Record<
        string,
        unknown
      >;
      const sign = (payload: Record<string, unknown>) =>
        new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode(secret));
      assert.equal((await me(keyed, await sign(claims))).statusCode, 200, 'the same claims, signed here, are accepted');
      const { sid: _sid, ...withoutSession } = claims;
      assert.equal((await me(keyed, await sign(withoutSession))).statusCode, 401);
      const other = await createUser(keyed.app, ['observer']);
      const otherSession = await login(keyed.app, other.username, other.password);
      const otherSid = (
        JSON.parse(Buffer.from(otherSession.access_token.split('.')[1]!, 'base64url').toString()) as { sid: string }
      ).sid;
      assert.equal((await me(keyed, await sign({ ...claims, sid: otherSid }))).statusCode, 401);
    } finally {
      await keyed.close();
    }
  });

  if (kind === 'postgres') {
    it('a logout on one instance ends the token on the other at once', async () => {
      assert.ok(second);
      const session = await login(t.app, 'admin', ADMIN_PASSWORD);
      assert.equal((await me(second, session.access_token)).statusCode, 200);
      assert.equal((await me(second, session.access_token)).statusCode, 200);
      const out = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/logout',
        payload: { refresh_token: session.refresh_token },
      });
      assert.equal(out.statusCode, 204);
      assert.equal((await me(second, session.access_token)).statusCode, 401);
    });
  }
});

describeEachDatabase('auth hardening: no secret in any log line at trace level', (kind) => {
  const vendor = keyPair();
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind, { env: { LOG_LEVEL: 'trace', FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem } });
  });
  after(async () => t.close());

  it('login, refresh, license import and user creation log no password, bearer token or refresh token', async () => {
    const secrets: string[] = [ADMIN_PASSWORD];
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    secrets.push(session.access_token, session.refresh_token);
    const rotated = json<{ access_token: string; refresh_token: string }>(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: session.refresh_token },
      }),
    );
    secrets.push(rotated.access_token, rotated.refresh_token);
    const token = await adminToken(t.app);
    secrets.push(token);
    const imported = await importLicense(t.app, token, issueLicense(vendor, t.clock.now()));
    assert.equal(imported.statusCode, 200, imported.body);
    const user = await createUser(t.app, ['observer'], { token });
    secrets.push(user.password, user.token);
    assert.equal((await attempt(t, user.username, `${user.password}-wrong`)).statusCode, 401);
    secrets.push(`${user.password}-wrong`);

    await new Promise((resolve) => setImmediate(resolve));
    const text = t.logs.join('');
    assert.ok(text.includes('busboy') || t.logs.length > 20, 'trace-level lines were written');
    for (const secret of secrets) {
      // The signature part alone identifies a JWT; a password or refresh token must not appear at all.
      const needle = secret.includes('.') ? secret.slice(secret.lastIndexOf('.') + 1) : secret;
      assert.ok(!text.includes(needle), `a secret reached the log: …${needle.slice(-6)}`);
    }
  });
});
