import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { after, before, describe, it, mock } from 'node:test';
import { SignJWT } from 'jose';
import { passwordHashing, verifyPassword } from '../../../src/crypto/password.js';
import type { AppError } from '../../../src/http/errors.js';
import { AccessTokens } from '../../../src/modules/auth/tokens.js';
import {
  ADMIN_PASSWORD,
  bearer,
  buildTestApp,
  createUser,
  json,
  login,
  problem,
  type TestApp,
} from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

async function me(t: TestApp, token: string) {
  return t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
}

async function refresh(t: TestApp, refreshToken: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: refreshToken } });
}

describeEachDatabase('auth: token life cycle', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind, { env: { FIELDLENS_ACCESS_TOKEN_TTL: '60', FIELDLENS_REFRESH_TOKEN_TTL: '3600' } });
  });
  after(async () => t.close());

  it('login answers the token response of the spec', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    assert.equal(response.statusCode, 200);
    const body = json<Record<string, unknown>>(response);
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'token_type']);
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.expires_in, 60);
    const [header, payload] = String(body.access_token)
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
    assert.equal(header?.typ, 'at+jwt');
    assert.equal(header?.alg, 'HS256');
    for (const claim of ['iss', 'aud', 'sub', 'iat', 'exp', 'jti'])
      assert.ok(payload?.[claim] !== undefined, `claim ${claim}`);
    assert.equal(Number(payload?.exp) - Number(payload?.iat), 60);
    assert.ok(
      Buffer.from(String(body.refresh_token), 'base64url').length >= 16,
      'refresh token carries at least 128 bits',
    );
  });

  it('login → me → expiry → token_expired → refresh → me → reuse revokes the session', async () => {
    const first = await login(t.app, 'admin', ADMIN_PASSWORD);
    const meResponse = await me(t, first.access_token);
    assert.equal(meResponse.statusCode, 200);
    const identity = json<{
      username: string;
      roles: unknown;
      permissions: string[];
      sku_tier: string;
      email: string;
      id: string;
    }>(meResponse);
    assert.equal(identity.username, 'admin');
    assert.deepEqual(identity.roles, [{ role: 'superadmin', scope: 'global' }]);
    assert.ok(identity.permissions.includes('license:write'));
    assert.equal(identity.sku_tier, 'trial_mock');

    t.clock.advance(61_000);
    const expired = await me(t, first.access_token);
    assert.equal(expired.statusCode, 401);
    assert.equal(problem(expired).code, 'token_expired');
    assert.equal(expired.headers['www-authenticate'], 'Bearer error="invalid_token", error_description="expired"');

    const rotated = await refresh(t, first.refresh_token);
    assert.equal(rotated.statusCode, 200);
    const second = json<{ access_token: string; refresh_token: string; expires_in: number; token_type?: string }>(
      rotated,
    );
    assert.equal(second.token_type, undefined, 'refresh answers without token_type');
    assert.equal(second.expires_in, 60);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await me(t, second.access_token)).statusCode, 200);

    const reused = await refresh(t, first.refresh_token);
    assert.equal(reused.statusCode, 401);
    assert.equal(problem(reused).code, 'invalid_grant');
    const descendant = await refresh(t, second.refresh_token);
    assert.equal(descendant.statusCode, 401, 'the whole session is revoked after reuse');
    assert.equal(problem(descendant).code, 'invalid_grant');

    const reuseEntries = await t.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'auth.refresh_reuse_detected')
      .execute();
    assert.equal(reuseEntries.length, 1);
  });

  it('other sessions of the same user survive a reuse in one session', async () => {
    const a = await login(t.app, 'admin', ADMIN_PASSWORD);
    const b = await login(t.app, 'admin', ADMIN_PASSWORD);
    const aNext = json<{ refresh_token: string }>(await refresh(t, a.refresh_token));
    assert.equal((await refresh(t, a.refresh_token)).statusCode, 401);
    assert.equal((await refresh(t, aNext.refresh_token)).statusCode, 401);
    assert.equal((await refresh(t, b.refresh_token)).statusCode, 200);
  });

  it('the refresh session has an absolute lifetime', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    t.clock.advance(1800_000);
    const halfway = await refresh(t, session.refresh_token);
    assert.equal(halfway.statusCode, 200);
    t.clock.advance(1801_000);
    const late = await refresh(t, json<{ refresh_token: string }>(halfway).refresh_token);
    assert.equal(late.statusCode, 401);
    assert.equal(problem(late).code, 'invalid_grant');
  });

  it('logout revokes the session', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      payload: { refresh_token: session.refresh_token },
    });
    assert.equal(out.statusCode, 204);
    assert.equal(out.body, '');
    assert.equal((await refresh(t, session.refresh_token)).statusCode, 401);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      payload: { refresh_token: 'never-issued' },
    });
    assert.equal(unknown.statusCode, 204);
  });

  it('refresh needs no bearer token, and an unknown refresh token is invalid_grant', async () => {
    const response = await refresh(t, 'not-a-real-token');
    assert.equal(response.statusCode, 401);
    assert.equal(problem(response).code, 'invalid_grant');
  });
});

describeEachDatabase('auth: forged and malformed tokens', (kind) => {
  let t: TestApp;
  let good: string;
  let refreshToken: string;
  let claims: Record<string, unknown>;
  before(async () => {
    t = await buildTestApp(kind);
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    good = session.access_token;
    refreshToken = session.refresh_token;
    claims = JSON.parse(Buffer.from(good.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  });
  after(async () => t.close());

  async function assertRefused(token: string, expectedCode = 'unauthorized') {
    const response = await me(t, token);
    assert.equal(response.statusCode, 401, token);
    assert.equal(problem(response).code, expectedCode);
    assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"');
  }

  it('accepts the genuine token', async () => {
    assert.equal((await me(t, good)).statusCode, 200);
  });

  it('refuses alg none', async () => {
    await assertRefused(`${b64url(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${b64url(JSON.stringify(claims))}.`);
  });

  it('refuses a flipped signature byte', async () => {
    const [h, p, s] = good.split('.') as [string, string, string];
    const sig = Buffer.from(s, 'base64url');
    sig[0] = (sig[0] ?? 0) ^ 0x01;
    await assertRefused(`${h}.${p}.${sig.toString('base64url')}`);
  });

  it('refuses a changed payload with the old signature', async () => {
    const [h, , s] = good.split('.') as [string, string, string];
    await assertRefused(
      `${h}.${b64url(JSON.stringify({ ...claims, sub: '00000000-0000-4000-8000-000000000000' }))}.${s}`,
    );
  });

  it('refuses a token altered behind a genuine signature, even while the genuine token is remembered', async () => {
    assert.equal((await me(t, good)).statusCode, 200);
    assert.equal((await me(t, good)).statusCode, 200, 'verified once, the genuine token is now remembered');
    const [h, p, s] = good.split('.') as [string, string, string];
    // The same user (so its lookup would succeed), a later expiry: only the signature can tell.
    await assertRefused(`${h}.${b64url(JSON.stringify({ ...claims, exp: Number(claims.exp) + 86_400 }))}.${s}`);
    await assertRefused(`${b64url(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: 'other' }))}.${p}.${s}`);
    assert.equal((await me(t, good)).statusCode, 200, 'the genuine token is still accepted');
  });

  it('refuses a token signed with another key, a wrong audience or issuer, or a wrong typ', async () => {
    const other = new TextEncoder().encode('x'.repeat(48));
    const base = () =>
      new SignJWT({ ver: 0 }).setSubject(String(claims.sub)).setIssuedAt().setExpirationTime('5m').setJti('j1');
    await assertRefused(
      await base()
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer('fieldlens')
        .setAudience('fieldlens-api')
        .sign(other),
    );
    const key = await t.database.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'auth.jwt_signing_key')
      .executeTakeFirstOrThrow();
    const real = new Uint8Array(Buffer.from(key.value, 'base64url'));
    await assertRefused(
      await base()
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer('fieldlens')
        .setAudience('someone-else')
        .sign(real),
    );
    await assertRefused(
      await base()
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer('evil')
        .setAudience('fieldlens-api')
        .sign(real),
    );
    await assertRefused(
      await base()
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer('fieldlens')
        .setAudience('fieldlens-api')
        .sign(real),
    );
    // Same key, HS512: outside the algorithm allow-list.
    await assertRefused(
      await base()
        .setProtectedHeader({ alg: 'HS512', typ: 'at+jwt' })
        .setIssuer('fieldlens')
        .setAudience('fieldlens-api')
        .sign(real),
    );
  });

  it('refuses a token carrying its own key in a jwk header', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    const token = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', jwk })
      .setSubject(String(claims.sub))
      .setIssuer('fieldlens')
      .setAudience('fieldlens-api')
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti('j2')
      .sign(privateKey);
    await assertRefused(token);
  });

  it('refuses an HS256 token whose signature was computed by hand with a guessable key', async () => {
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'at+jwt' }));
    const payload = b64url(JSON.stringify(claims));
    const sig = createHmac('sha256', 'secret').update(`${header}.${payload}`).digest('base64url');
    await assertRefused(`${header}.${payload}.${sig}`);
  });

  it('refuses the refresh token sent as a bearer token, and garbage', async () => {
    await assertRefused(refreshToken);
    await assertRefused('a.b.c');
    const malformedHeader = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: 'Basic YWRtaW46YWRtaW4=' },
    });
    assert.equal(malformedHeader.statusCode, 401);
    assert.equal(malformedHeader.headers['www-authenticate'], 'Bearer error="invalid_token"');
  });

  it('answers no token with 401 and a plain Bearer challenge', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' });
    assert.equal(response.statusCode, 401);
    assert.equal(problem(response).code, 'unauthorized');
    assert.equal(response.headers['www-authenticate'], 'Bearer');
  });
});

describe('auth: the verified-token memory', () => {
  const settings = { issuer: 'fieldlens', audience: 'fieldlens-api', ttlSeconds: 60 };
  const tokens = new AccessTokens(randomBytes(32), settings);

  it('answers claims at once only for a token it verified, with the same text, until it expires', async () => {
    const now = new Date();
    const token = await tokens.sign(
      { sub: '11111111-1111-4111-8111-111111111111', ver: 3, sid: '22222222-2222-4222-8222-222222222222' },
      now,
    );
    assert.equal(tokens.verifiedClaims(token, now), undefined, 'signed is not verified');
    const claims = { sub: '11111111-1111-4111-8111-111111111111', ver: 3, sid: '22222222-2222-4222-8222-222222222222' };
    assert.deepEqual(await tokens.verify(token, now), claims);
    assert.deepEqual(tokens.verifiedClaims(token, now), claims);
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${b64url(JSON.stringify({ ...payload, ver: 4 }))}.${s}`;
    assert.equal(tokens.verifiedClaims(forged, now), undefined, 'a genuine signature under another payload is a miss');
    await assert.rejects(tokens.verify(forged, now), (error: AppError) => error.code === 'unauthorized');
    assert.deepEqual(tokens.verifiedClaims(token, now)?.ver, 3, 'the failed forgery leaves the genuine entry alone');
    const later = new Date(now.getTime() + 61_000);
    assert.equal(tokens.verifiedClaims(token, later), undefined, 'expiry is checked on every use');
    await assert.rejects(tokens.verify(token, later), (error: AppError) => error.code === 'token_expired');
  });
});

describeEachDatabase('auth: failed logins', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('unknown user and wrong password are answered alike, each after one Argon2id verification with the same parameters', async () => {
    // Counted, not timed: what would tell the two paths apart is a verification one of them skips or makes cheaper.
    // (The CPU time of both paths is measured in bench/http.ts, where timing belongs.)
    const verified: string[] = [];
    const verify = mock.method(passwordHashing, 'verify', async (hash: string, password: string) => {
      verified.push(hash);
      return verifyPassword(hash, password);
    });
    try {
      const attempt = async (username: string) => {
        verified.length = 0;
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { username, password: 'wrong-password-123' },
        });
        return { response, hashes: [...verified] };
      };
      const unknown = await attempt('nobody-at-all');
      const wrong = await attempt('admin');
      assert.equal(unknown.response.statusCode, 401);
      assert.equal(wrong.response.statusCode, 401);
      const strip = (body: Record<string, unknown>) => ({ ...body, instance: undefined });
      assert.deepEqual(strip(json(unknown.response)), strip(json(wrong.response)));
      assert.equal(problem(unknown.response).code, 'invalid_credentials');
      assert.equal(unknown.hashes.length, 1, 'an unknown user costs one verification');
      assert.equal(wrong.hashes.length, 1, 'a wrong password costs one verification');
      // `$argon2id$v=19$m=19456,t=2,p=1$salt$hash`: the same algorithm and cost, so the same work.
      const parameters = (hash: string) => hash.split('$').slice(1, 4).join('$');
      assert.match(parameters(unknown.hashes[0] ?? ''), /^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
      assert.equal(parameters(unknown.hashes[0] ?? ''), parameters(wrong.hashes[0] ?? ''));
      assert.notEqual(
        unknown.hashes[0],
        wrong.hashes[0],
        "the unknown user is checked against a hash of its own, not the admin's",
      );
    } finally {
      verify.mock.restore();
    }
  });

  it('after 10 consecutive failures a username is throttled with Retry-After; others are not', async () => {
    const victim = await createUser(t.app, ['observer']);
    const bystander = await createUser(t.app, ['observer']);
    for (let i = 0; i < 10; i += 1) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: victim.username, password: `wrong-${i}-xxxxxxxx` },
      });
      assert.equal(response.statusCode, 401);
    }
    const locked = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: victim.username, password: victim.password },
    });
    assert.equal(locked.statusCode, 429, 'even the right password waits');
    assert.equal(problem(locked).code, 'rate_limited');
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(retryAfter >= 59 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await login(t.app, bystander.username, bystander.password)).access_token.length > 0, true);

    t.clock.advance(61_000);
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: victim.username, password: 'still-wrong-xxxxxx' },
    });
    assert.equal(again.statusCode, 401);
    const longer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: victim.username, password: victim.password },
    });
    assert.equal(longer.statusCode, 429);
    assert.ok(Number(longer.headers['retry-after']) > 60, 'the lock backs off');
    t.clock.advance(121_000);
    assert.ok((await login(t.app, victim.username, victim.password)).access_token);
    // success clears the streak
    const fresh = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: victim.username, password: 'wrong-once-more-xx' },
    });
    assert.equal(fresh.statusCode, 401);
  });

  it('throttles an unknown username the same way (no user enumeration through 429s)', async () => {
    for (let i = 0; i < 10; i += 1) {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'no-such-user', password: `wrong-${i}-xxxxxxxx` },
      });
    }
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'no-such-user', password: 'x' },
    });
    assert.equal(response.statusCode, 429);
  });

  it('records successful and failed logins in the audit log', async () => {
    const entries = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', 'in', ['auth.login', 'auth.login_failed'])
      .execute();
    assert.ok(entries.some((e) => e.action === 'auth.login'));
    const failed = entries.filter((e) => e.action === 'auth.login_failed');
    assert.ok(failed.length >= 20);
    assert.ok(
      failed.every((e) => !e.details.includes('wrong-')),
      'attempted passwords never reach the audit log',
    );
  });

  it('a fresh install has no default password', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: 'admin' },
    });
    assert.equal(response.statusCode, 401);
  });
});
