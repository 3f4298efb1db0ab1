/**
 * Single sign-on (CONTRACT §12) for real: a real OpenID provider (oidc-provider) runs in this process on 127.0.0.1 and
 * its own development sign-in and consent pages are gone through the way a browser would (fetch with a cookie jar);
 * the service is the real app on each database.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import {
  ADMIN_PASSWORD,
  adminToken,
  bearer,
  buildTestApp,
  createUser,
  json,
  problem,
  type TestApp,
} from '../../helpers/app.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import {
  PUBLIC_CLIENT_ID,
  signInAtProvider,
  startTestProvider,
  type TestProvider,
} from '../../helpers/oidc-provider.js';
import { importLicense, issueLicense, keyPair } from '../license/license.helpers.js';

const PUBLIC_URL = 'http://fieldlens.test';
const REDIRECT_URI = `${PUBLIC_URL}/api/v1/auth/oidc/callback`;

function oidcEnv(provider: TestProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    FIELDLENS_OIDC_ISSUER: provider.issuer,
    FIELDLENS_OIDC_CLIENT_ID: provider.clientId,
    FIELDLENS_OIDC_CLIENT_SECRET: provider.clientSecret,
    FIELDLENS_PUBLIC_URL: PUBLIC_URL,
    FIELDLENS_OIDC_ROLE_MAP: 'fl-admins=admin,fl-reviewers=operator,fl-reviewers=observer,fl-viewers=observer',
    FIELDLENS_OIDC_NAME: 'Test IdP',
    ...extra,
  };
}

interface Started {
  authorizationUrl: URL;
  cookie: string;
}

async function start(t: TestApp): Promise<Started> {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
  assert.equal(response.statusCode, 302, response.body);
  const setCookie = String(response.headers['set-cookie']);
  assert.match(
    setCookie,
    /^fieldlens_sso=[A-Za-z0-9_-]{43}; Path=\/api\/v1\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/,
  );
  return { authorizationUrl: new URL(String(response.headers.location)), cookie: setCookie.split(';')[0] as string };
}

async function callback(t: TestApp, url: URL, cookie: string): Promise<string> {
  const response = await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { cookie } });
  assert.equal(response.statusCode, 302, response.body);
  return String(response.headers.location);
}

/** A whole sign-in as the person typing `login` at the provider: where the callback sends the browser, and its cookie. */
async function signIn(t: TestApp, login: string): Promise<{ location: string; cookie: string }> {
  const started = await start(t);
  const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, login);
  return { location: await callback(t, back, started.cookie), cookie: started.cookie };
}

function codeOf(location: string): string {
  const match = /^http:\/\/fieldlens\.test\/#sso_code=([A-Za-z0-9_-]{43})$/.exec(location);
  assert.ok(match, `expected a redirect to the console with a code, got ${location}`);
  return match[1] as string;
}

async function exchange(t: TestApp, code: string, cookie: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/oidc/token', headers: { cookie }, payload: { code } });
}

async function me(t: TestApp, token: string) {
  const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
  return {
    status: response.statusCode,
    body: json<{ id: string; username: string; email: string; roles: Array<{ role: string }> }>(response),
  };
}

async function usersNamed(t: TestApp, prefix: string) {
  return t.database.db.selectFrom('users').selectAll().where('username', 'like', `${prefix}%`).execute();
}

describeEachDatabase('single sign-on with OpenID Connect', (kind) => {
  let provider: TestProvider;
  let t: TestApp;

  // These tests create more users than the trial's quota of 5: run them under an unlimited license.
  const vendor = keyPair();
  before(async () => {
    provider = await startTestProvider({ redirectUri: REDIRECT_URI });
    t = await buildTestApp(kind, { env: oidcEnv(provider, { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem }) });
    const license = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'enterprise',
      quotas: { max_datasources: null, max_users: null },
    });
    assert.equal((await importLicense(t.app, await adminToken(t.app), license)).statusCode, 200);
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  test('providers: password and SSO, with the configured name', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(json(response), { password: true, oidc: { enabled: true, name: 'Test IdP' } });
  });

  test('start redirects to the provider with the code flow, PKCE S256, state, nonce and the redirect URI', async () => {
    const { authorizationUrl } = await start(t);
    assert.equal(authorizationUrl.origin, provider.issuer);
    const p = authorizationUrl.searchParams;
    assert.equal(p.get('response_type'), 'code');
    assert.equal(p.get('client_id'), provider.clientId);
    assert.equal(p.get('redirect_uri'), REDIRECT_URI);
    assert.equal(p.get('code_challenge_method'), 'S256');
    assert.match(p.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(p.get('state') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(p.get('nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.match(p.get('scope') ?? '', /\bopenid\b/);
    // The database keeps the state only hashed and the verifier only sealed.
    const rows = await t.database.db.selectFrom('sso_logins').selectAll().execute();
    const state = p.get('state') as string;
    assert.ok(rows.length >= 1);
    for (const row of rows) {
      assert.notEqual(row.state_hash, state);
      assert.doesNotMatch(JSON.stringify(row), new RegExp(state));
    }
  });

  test('the first sign-in creates the user with the mapped roles and yields a working token pair', async () => {
    provider.accounts.set('ada', {
      preferred_username: 'ada.sso',
      email: 'ada@example.com',
      groups: ['fl-reviewers', 'unrelated'],
    });
    const { location, cookie } = await signIn(t, 'ada');
    const code = codeOf(location);
    const response = await exchange(t, code, cookie);
    assert.equal(response.statusCode, 200, response.body);
    const tokens = json<{ access_token: string; refresh_token: string; token_type: string; expires_in: number }>(
      response,
    );
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 900);
    assert.match(String(response.headers['set-cookie']), /^fieldlens_sso=; Path=\/api\/v1\/auth\/oidc; Max-Age=0/);

    const who = await me(t, tokens.access_token);
    assert.equal(who.status, 200);
    assert.equal(who.body.username, 'ada.sso');
    assert.equal(who.body.email, 'ada@example.com');
    assert.deepEqual(who.body.roles.map((r) => r.role).sort(), ['observer', 'operator']);
    // The refresh token rotates like a password login's.
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: tokens.refresh_token },
    });
    assert.equal(refreshed.statusCode, 200);

    const [user] = await usersNamed(t, 'ada.sso');
    assert.equal(user?.oidc_issuer, provider.issuer);
    assert.equal(user?.oidc_subject, 'ada');

    const audit = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target_id', '=', user?.id ?? '')
      .orderBy('seq')
      .execute();
    const actions = audit.map((a) => a.action);
    assert.deepEqual(actions, ['user.created', 'auth.login']);
    assert.match(audit[0]?.details ?? '', /"source":"oidc"/);
    assert.match(audit[1]?.details ?? '', /"method":"oidc"/);
    // No secret of the sign-in in the audit log or the logs.
    const everything =
      JSON.stringify(await t.database.db.selectFrom('audit_log').selectAll().execute()) + t.logs.join('');
    for (const secret of [
      code,
      tokens.access_token,
      tokens.refresh_token,
      cookie.split('=')[1] as string,
      provider.clientSecret,
    ]) {
      assert.ok(!everything.includes(secret), 'a secret of the sign-in reached the audit log or the logs');
    }
  });

  test('the sso code is single use', async () => {
    provider.accounts.set('bob', { preferred_username: 'bob.sso', groups: ['fl-viewers'] });
    const { location, cookie } = await signIn(t, 'bob');
    const code = codeOf(location);
    assert.equal((await exchange(t, code, cookie)).statusCode, 200);
    const again = await exchange(t, code, cookie);
    assert.equal(again.statusCode, 401);
    assert.equal(problem(again).code, 'unauthorized');
  });

  test('the sso code expires after 60 s on the app clock', async () => {
    provider.accounts.set('cyd', { preferred_username: 'cyd.sso', groups: ['fl-viewers'] });
    const first = await signIn(t, 'cyd');
    t.clock.advance(59_000);
    assert.equal((await exchange(t, codeOf(first.location), first.cookie)).statusCode, 200, 'still good at 59 s');
    const second = await signIn(t, 'cyd');
    t.clock.advance(60_001);
    const late = await exchange(t, codeOf(second.location), second.cookie);
    assert.equal(late.statusCode, 401);
    problem(late);
  });

  test('the sso code works only in the browser that started the sign-in', async () => {
    provider.accounts.set('dee', { preferred_username: 'dee.sso', groups: ['fl-viewers'] });
    const { location } = await signIn(t, 'dee');
    const code = codeOf(location);
    assert.equal((await exchange(t, code, 'fieldlens_sso=someone-elses-binding')).statusCode, 401);
    // …and the attempt used it up.
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/auth/oidc/token', payload: { code } })).statusCode,
      401,
    );
  });

  test('a callback in another browser than the one that started is refused', async () => {
    provider.accounts.set('eve', { preferred_username: 'eve.sso', groups: ['fl-admins'] });
    const started = await start(t);
    const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'eve');
    assert.equal(await callback(t, back, 'fieldlens_sso=another-browser'), `${PUBLIC_URL}/#sso_error=login_failed`);
    assert.equal((await usersNamed(t, 'eve.sso')).length, 0);
  });

  test('a user with no mapped role gets no session and no account; the console is told why', async () => {
    provider.accounts.set('fay', { preferred_username: 'fay.sso', groups: ['marketing'] });
    const { location } = await signIn(t, 'fay');
    assert.equal(location, `${PUBLIC_URL}/#sso_error=no_role`);
    assert.equal((await usersNamed(t, 'fay.sso')).length, 0);
    const refused = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'auth.sso_login_failed')
      .execute();
    assert.ok(refused.some((r) => /"error":"no_role"/.test(r.details ?? '')));
  });

  test('a changed group claim changes the roles at the next sign-in, and ends the old sessions', async () => {
    provider.accounts.set('gus', { preferred_username: 'gus.sso', groups: ['fl-admins'] });
    const first = await signIn(t, 'gus');
    const firstTokens = json<{ access_token: string }>(await exchange(t, codeOf(first.location), first.cookie));
    assert.deepEqual(
      (await me(t, firstTokens.access_token)).body.roles.map((r) => r.role),
      ['admin'],
    );

    provider.accounts.set('gus', { preferred_username: 'gus.sso', groups: ['fl-viewers'] });
    const second = await signIn(t, 'gus');
    const secondTokens = json<{ access_token: string }>(await exchange(t, codeOf(second.location), second.cookie));
    const now = await me(t, secondTokens.access_token);
    assert.deepEqual(
      now.body.roles.map((r) => r.role),
      ['observer'],
    );
    assert.equal((await me(t, firstTokens.access_token)).status, 401, 'the admin-era token is dead');
    assert.equal((await usersNamed(t, 'gus.sso')).length, 1, 'the same user, not a second one');

    // No mapped role any more: no session, and the user keeps no role.
    provider.accounts.set('gus', { preferred_username: 'gus.sso', groups: [] });
    assert.equal((await signIn(t, 'gus')).location, `${PUBLIC_URL}/#sso_error=no_role`);
    assert.equal((await me(t, secondTokens.access_token)).status, 401);
    const [row] = await usersNamed(t, 'gus.sso');
    assert.equal(row?.roles, '[]');
  });

  test('a renamed account at the provider maps back to the same user (issuer and subject)', async () => {
    provider.accounts.set('hal', { preferred_username: 'hal.sso', groups: ['fl-viewers'] });
    const first = await signIn(t, 'hal');
    const a = json<{ access_token: string }>(await exchange(t, codeOf(first.location), first.cookie));
    provider.accounts.set('hal', { preferred_username: 'hal.renamed', groups: ['fl-viewers'] });
    const second = await signIn(t, 'hal');
    const b = json<{ access_token: string }>(await exchange(t, codeOf(second.location), second.cookie));
    assert.equal((await me(t, a.access_token)).body.id, (await me(t, b.access_token)).body.id);
  });

  test('a username already taken by a local user is not taken over: the SSO user gets a free one', async () => {
    provider.accounts.set('ivy', { preferred_username: 'admin', groups: ['fl-viewers'] });
    const { location, cookie } = await signIn(t, 'ivy');
    const tokens = json<{ access_token: string }>(await exchange(t, codeOf(location), cookie));
    const who = await me(t, tokens.access_token);
    assert.equal(who.body.username, 'admin-2');
    assert.deepEqual(
      who.body.roles.map((r) => r.role),
      ['observer'],
    );
  });

  test('a disabled user cannot sign in through SSO', async () => {
    provider.accounts.set('jon', { preferred_username: 'jon.sso', groups: ['fl-viewers'] });
    const first = await signIn(t, 'jon');
    assert.equal((await exchange(t, codeOf(first.location), first.cookie)).statusCode, 200);
    const [row] = await usersNamed(t, 'jon.sso');
    const admin = json<{ access_token: string }>(
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      }),
    );
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/users/${row?.id}`,
      headers: bearer(admin.access_token),
      payload: { disabled: true },
    });
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.equal((await signIn(t, 'jon')).location, `${PUBLIC_URL}/#sso_error=user_disabled`);
  });

  test("the provider's authorization code and state in the callback's address are never logged", async () => {
    provider.accounts.set('quin', { preferred_username: 'quin.sso', groups: ['fl-viewers'] });
    const started = await start(t);
    const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'quin');
    const before = t.logs.length;
    codeOf(await callback(t, back, started.cookie));
    const lines = t.logs.slice(before).join('');
    assert.match(lines, /\/api\/v1\/auth\/oidc\/callback\?/, 'the callback was logged');
    for (const secret of [back.searchParams.get('code') as string, back.searchParams.get('state') as string])
      assert.ok(!lines.includes(secret), lines.slice(0, 600));
  });

  test('a sign-in started on one instance finishes on another (pending sign-ins live in the database)', async () => {
    provider.accounts.set('rex', { preferred_username: 'rex.sso', groups: ['fl-viewers'] });
    const other = await buildTestApp(kind, {
      env: oidcEnv(provider, { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem }),
      testDatabase: t.testDatabase,
      clock: t.clock,
    });
    try {
      const started = await start(t);
      const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'rex');
      const location = await callback(other, back, started.cookie);
      const response = await exchange(t, codeOf(location), started.cookie);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await me(other, json<{ access_token: string }>(response).access_token)).body.username, 'rex.sso');
      // The state was taken on the other instance: replaying the callback on the first one fails.
      assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=login_expired`);
    } finally {
      await other.close();
    }
  });

  test('a replayed state (the callback called twice) fails', async () => {
    provider.accounts.set('kim', { preferred_username: 'kim.sso', groups: ['fl-viewers'] });
    const started = await start(t);
    const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'kim');
    codeOf(await callback(t, back, started.cookie));
    assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=login_expired`);
  });

  test('a wrong nonce fails (the stored nonce tampered with)', async () => {
    provider.accounts.set('lee', { preferred_username: 'lee.sso', groups: ['fl-viewers'] });
    const started = await start(t);
    const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'lee');
    await t.database.db.updateTable('sso_logins').set({ nonce: 'not-the-nonce-sent-to-the-provider' }).execute();
    assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=login_failed`);
    assert.equal((await usersNamed(t, 'lee.sso')).length, 0);
    const refused = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'auth.sso_login_failed')
      .orderBy('seq', 'desc')
      .executeTakeFirst();
    assert.match(refused?.details ?? '', /nonce/);
  });

  test('an expired authorization code fails', async () => {
    provider.accounts.set('max', { preferred_username: 'max.sso', groups: ['fl-viewers'] });
    provider.codeTtlSeconds = 1;
    try {
      const started = await start(t);
      const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'max');
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=login_failed`);
    } finally {
      provider.codeTtlSeconds = 60;
    }
    assert.equal((await usersNamed(t, 'max.sso')).length, 0);
    const refused = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'auth.sso_login_failed')
      .orderBy('seq', 'desc')
      .executeTakeFirst();
    assert.match(refused?.details ?? '', /invalid_grant/, 'the provider refused the expired code');
  });

  test('a pending sign-in older than 10 minutes is refused', async () => {
    provider.accounts.set('ned', { preferred_username: 'ned.sso', groups: ['fl-viewers'] });
    const started = await start(t);
    const back = await signInAtProvider(started.authorizationUrl.href, REDIRECT_URI, 'ned');
    t.clock.advance(10 * 60 * 1000 + 1);
    assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=login_expired`);
  });

  test('the provider refusing (access_denied) comes back as the reason', async () => {
    const started = await start(t);
    const state = started.authorizationUrl.searchParams.get('state') as string;
    const back = new URL(`${REDIRECT_URI}?error=access_denied&state=${state}`);
    assert.equal(await callback(t, back, started.cookie), `${PUBLIC_URL}/#sso_error=access_denied`);
  });

  test('bad input to the token exchange is a 400 problem', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/auth/oidc/token', payload: { code: '' } });
    assert.equal(response.statusCode, 400);
    problem(response);
  });
});

describeEachDatabase('single sign-on switched off, and password login switched off', (kind) => {
  test('without OIDC: providers says so, and the SSO routes are 404', async () => {
    const t = await buildTestApp(kind);
    try {
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
      assert.deepEqual(json(response), { password: true, oidc: { enabled: false, name: null } });
      for (const request of [
        { method: 'GET' as const, url: '/api/v1/auth/oidc/start' },
        { method: 'GET' as const, url: '/api/v1/auth/oidc/callback?code=x&state=y' },
        { method: 'POST' as const, url: '/api/v1/auth/oidc/token', payload: { code: 'x' } },
      ]) {
        const answer = await t.app.inject(request);
        assert.equal(answer.statusCode, 404, `${request.url}: ${answer.body}`);
        problem(answer);
      }
    } finally {
      await t.close();
    }
  });

  test('a provider that cannot be reached sends the browser back with provider_unavailable', async () => {
    const provider = await startTestProvider({ redirectUri: REDIRECT_URI });
    await provider.close();
    const t = await buildTestApp(kind, { env: oidcEnv(provider) });
    try {
      const response = await t.app.inject({ method: 'GET', url: '/api/v1/auth/oidc/start' });
      assert.equal(response.statusCode, 302);
      assert.equal(response.headers.location, `${PUBLIC_URL}/#sso_error=provider_unavailable`);
      assert.equal(response.headers['set-cookie'], undefined);
      assert.ok(
        t.logs.some((l) => l.includes('could not be reached')),
        'the operator is told in the log',
      );
      assert.equal(
        await t.database.db.selectFrom('sso_logins').select('state_hash').executeTakeFirst(),
        undefined,
        'nothing stored',
      );
    } finally {
      await t.close();
    }
  });

  test('a public client (no client secret: PKCE only) signs in too', async () => {
    const provider = await startTestProvider({ redirectUri: REDIRECT_URI });
    const env = oidcEnv(provider, { FIELDLENS_OIDC_CLIENT_ID: PUBLIC_CLIENT_ID });
    delete env.FIELDLENS_OIDC_CLIENT_SECRET;
    const t = await buildTestApp(kind, { env });
    try {
      assert.equal(t.config.oidc?.clientSecret, undefined);
      provider.accounts.set('una', { preferred_username: 'una.sso', groups: ['fl-viewers'] });
      const { location, cookie } = await signIn(t, 'una');
      const response = await exchange(t, codeOf(location), cookie);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal((await me(t, json<{ access_token: string }>(response).access_token)).body.username, 'una.sso');
    } finally {
      await t.close();
      await provider.close();
    }
  });

  test("the license's user quota: a new SSO user beyond it is refused, and the console is told why", async () => {
    const provider = await startTestProvider({ redirectUri: REDIRECT_URI });
    const t = await buildTestApp(kind, { env: oidcEnv(provider) });
    try {
      const admin = await adminToken(t.app);
      for (let i = 0; i < 4; i++) await createUser(t.app, ['observer'], { token: admin });
      provider.accounts.set('pat', { preferred_username: 'pat.sso', groups: ['fl-viewers'] });
      assert.equal((await signIn(t, 'pat')).location, `${PUBLIC_URL}/#sso_error=quota_exceeded`);
      assert.equal((await usersNamed(t, 'pat.sso')).length, 0);
    } finally {
      await t.close();
      await provider.close();
    }
  });

  test('FIELDLENS_PASSWORD_LOGIN=off: password login is 403 and providers says password: false', async () => {
    const provider = await startTestProvider({ redirectUri: REDIRECT_URI });
    const t = await buildTestApp(kind, { env: oidcEnv(provider, { FIELDLENS_PASSWORD_LOGIN: 'off' }) });
    try {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      });
      assert.equal(refused.statusCode, 403);
      assert.equal(problem(refused).code, 'forbidden');
      assert.deepEqual(json(await t.app.inject({ method: 'GET', url: '/api/v1/auth/providers' })), {
        password: false,
        oidc: { enabled: true, name: 'Test IdP' },
      });
      // Single sign-on still works.
      provider.accounts.set('olga', { preferred_username: 'olga.sso', groups: ['fl-admins'] });
      const { location, cookie } = await signIn(t, 'olga');
      assert.equal((await exchange(t, codeOf(location), cookie)).statusCode, 200);
    } finally {
      await t.close();
      await provider.close();
    }
  });
});

test('config: single sign-on needs all of issuer, client id, public URL and role map, with known roles', () => {
  const full = {
    FIELDLENS_OIDC_ISSUER: 'https://sso.example.com/realms/acme',
    FIELDLENS_OIDC_CLIENT_ID: 'fieldlens',
    FIELDLENS_PUBLIC_URL: 'https://fieldlens.example.com/',
    FIELDLENS_OIDC_ROLE_MAP: 'admins=admin, data = dba ,data=operator',
  };
  const config = loadConfig(full);
  assert.equal(config.oidc?.redirectUri, 'https://fieldlens.example.com/api/v1/auth/oidc/callback');
  assert.equal(config.oidc?.rolesClaim, 'groups');
  assert.equal(config.oidc?.clientSecret, undefined);
  assert.deepEqual(
    [...(config.oidc?.roleMap ?? [])],
    [
      ['admins', ['admin']],
      ['data', ['dba', 'operator']],
    ],
  );
  assert.equal(loadConfig({}).oidc, undefined);
  for (const missing of [
    'FIELDLENS_OIDC_ISSUER',
    'FIELDLENS_OIDC_CLIENT_ID',
    'FIELDLENS_PUBLIC_URL',
    'FIELDLENS_OIDC_ROLE_MAP',
  ] as const) {
    assert.throws(
      () => loadConfig({ ...full, [missing]: '' }),
      new RegExp(`^ConfigError: ${missing}: is required for single sign-on`),
    );
  }
  assert.throws(() => loadConfig({ FIELDLENS_OIDC_CLIENT_SECRET: 'x' }), /FIELDLENS_OIDC_ISSUER: is required/);
  assert.throws(
    () => loadConfig({ ...full, FIELDLENS_OIDC_ROLE_MAP: 'admins=root' }),
    /FIELDLENS_OIDC_ROLE_MAP: "root" is not a role/,
  );
  assert.throws(
    () => loadConfig({ ...full, FIELDLENS_OIDC_ROLE_MAP: 'admins' }),
    /FIELDLENS_OIDC_ROLE_MAP: must look like/,
  );
  assert.throws(
    () => loadConfig({ ...full, FIELDLENS_OIDC_ISSUER: 'http://sso.example.com' }),
    /FIELDLENS_OIDC_ISSUER: must be https/,
  );
  assert.equal(
    loadConfig({ ...full, FIELDLENS_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer,
    'http://127.0.0.1:9000',
  );
  assert.throws(
    () => loadConfig({ FIELDLENS_PASSWORD_LOGIN: 'off' }),
    /FIELDLENS_PASSWORD_LOGIN: off needs single sign-on/,
  );
  assert.equal(loadConfig({ ...full, FIELDLENS_PASSWORD_LOGIN: 'off' }).auth.passwordLogin, false);
});
