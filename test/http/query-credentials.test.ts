// A credential sent in the query string (a client that cannot set a header: `?access_token=`) is never logged
// verbatim: every line carrying the URL shows the parameter with `[redacted]` as its value.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { redactUrl } from '../../src/http/log-serializers.js';
import { adminToken, bearer, buildTestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

describeEachDatabase('credentials in the query string', (kind) => {
  it('logs no token or password sent as a query parameter, at trace level, for answered, refused and unknown paths', async () => {
    const t = await buildTestApp(kind, { env: { LOG_LEVEL: 'trace' } });
    try {
      const token = await adminToken(t.app);
      const secrets = [
        token,
        `pw-${randomBytes(8).toString('hex')}`,
        `key-${randomBytes(8).toString('hex')}`,
        `sig-${randomBytes(8).toString('hex')}`,
      ];
      const [access, password, apiKey, signature] = secrets as [string, string, string, string];
      const urls = [
        `/api/v1/auth/me?access_token=${access}`,
        `/api/v1/fields?limit=5&access_token=${encodeURIComponent(access)}&q=name`,
        `/api/v1/nothing-here?token=${access}&password=${password}`,
        `/api/v1/datasources?api_key=${apiKey}&X-Amz-Signature=${signature}`,
        `/api/v1/fields?%61ccess_token=${access}`,
        `/api/v1/fields?limit=not-a-number&refresh_token=${access}`,
      ];
      for (const url of urls) await t.app.inject({ method: 'GET', url });
      await t.app.inject({ method: 'GET', url: `/api/v1/auth/me?access_token=${access}`, headers: bearer(token) });
      t.app.log.info({ url: `/x?client_secret=${password}` }, 'a line logging a url');
      const logs = t.logs.join('');
      for (const url of ['/api/v1/auth/me', '/api/v1/nothing-here', '/api/v1/datasources'])
        assert.ok(logs.includes(url), `${url} was logged`);
      for (const secret of secrets)
        assert.ok(!logs.includes(secret), t.logs.find((l) => l.includes(secret))?.slice(0, 400));
      assert.ok(logs.includes('access_token=[redacted]'), 'the parameter name stays, for whoever reads the log');
      assert.ok(logs.includes('limit=5'), 'other parameters are kept');
    } finally {
      await t.close();
    }
  });
});

it('redactUrl keeps URLs without credentials as they are and censors only credential values', () => {
  const plain = '/api/v1/fields?limit=5&q=token_count';
  assert.equal(redactUrl(plain), plain);
  assert.equal(redactUrl('/api/v1/fields'), '/api/v1/fields');
  assert.equal(redactUrl('/a?access_token=abc&limit=5'), '/a?access_token=[redacted]&limit=5');
  assert.equal(
    redactUrl('/a?Password=x&passwd=y&pwd=z&key=k&keyword=w'),
    '/a?Password=[redacted]&passwd=[redacted]&pwd=[redacted]&key=[redacted]&keyword=w',
  );
  assert.equal(redactUrl('/a?access_token'), '/a?access_token=[redacted]');
  assert.equal(redactUrl('/a?%zz=1'), '/a?%zz=1');
  assert.equal(redactUrl(undefined), undefined);
});
