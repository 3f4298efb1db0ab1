import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PERMISSIONS, ROLES } from '../../src/http/access.js';
import { buildTestApp, json, problem, type TestApp } from '../helpers/app.js';
import { createTestDatabase, databaseKinds, describeEachDatabase } from '../helpers/databases.js';

describeEachDatabase('foundation', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('answers /healthz and /readyz with a request id header', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(json(health), { status: 'ok' });
    assert.match(String(health.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
  });

  it('keeps a sane incoming X-Request-Id and replaces a hostile one', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(kept.headers['x-request-id'], 'abc-123');
    const replaced = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a\nb' } });
    assert.notEqual(replaced.headers['x-request-id'], 'a\nb');
  });

  it('writes one access line per request with its id, method, path and status, but keeps probes out of the access log', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { 'x-request-id': 'trace-me-42' } });
    const lines = t.logs
      .filter((line) => line.includes('trace-me-42'))
      .map(
        (line) =>
          JSON.parse(line) as {
            reqId: string;
            msg: string;
            req: Record<string, unknown>;
            res: Record<string, unknown>;
            responseTime: number;
          },
      );
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.msg, 'request completed');
    assert.equal(lines[0]?.reqId, 'trace-me-42');
    assert.deepEqual(
      lines[0]?.req,
      { method: 'GET', url: '/api/v1/auth/me', remoteAddress: '127.0.0.1' },
      'the client address is logged',
    );
    assert.deepEqual(lines[0]?.res, { statusCode: 401 });
    assert.equal(typeof lines[0]?.responseTime, 'number');
    await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'probe-43' } });
    assert.equal(t.logs.filter((line) => line.includes('probe-43')).length, 0);
  });

  it('redacts credentials wherever a log line could carry them', async () => {
    const secrets = {
      password: 'pw-secret-1',
      current_password: 'pw-secret-2',
      access_token: 'at-secret-3',
      refresh_token: 'rt-secret-4',
    };
    t.app.log.info(
      {
        ...secrets,
        body: { ...secrets },
        req: { headers: { authorization: 'Bearer hdr-secret-5', cookie: 'sid=ck-secret-6' }, body: { ...secrets } },
        payload: { ...secrets },
      },
      'redaction probe',
    );
    const line = t.logs.find((l) => l.includes('redaction probe'));
    assert.ok(line);
    for (const secret of [...Object.values(secrets), 'hdr-secret-5', 'ck-secret-6'])
      assert.ok(!line.includes(secret), `${secret} is redacted`);
    // Top level, body, req.body and payload: 16 fields; req.headers: 2.
    assert.equal(line.split('[redacted]').length - 1, 18);
    const logged = JSON.parse(line) as { req: { headers: Record<string, string> } };
    assert.deepEqual(logged.req.headers, { authorization: '[redacted]', cookie: '[redacted]' });
  });

  it('serves an OpenAPI 3 document generated from the routes, and the docs UI', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = json<{ openapi: string; paths: Record<string, Record<string, { security?: unknown }>> }>(response);
    assert.match(doc.openapi, /^3\./);
    assert.ok(doc.paths['/api/v1/auth/login']?.post, 'login is documented');
    assert.deepEqual(doc.paths['/api/v1/auth/login']?.post?.security, [], 'login needs no token');
    assert.deepEqual(doc.paths['/api/v1/auth/me']?.get?.security, [{ bearer: [] }]);
    // Enums are documented with their values (they are { type: 'string', enum } for the serializer's sake).
    type Schema = { type?: string; enum?: string[]; items?: Schema; properties?: Record<string, Schema> };
    const meSchema = (
      doc.paths['/api/v1/auth/me']?.get as {
        responses: Record<string, { content: Record<string, { schema: Schema }> }>;
      }
    ).responses['200']?.content['application/json']?.schema;
    assert.deepEqual(meSchema?.properties?.permissions?.items, { type: 'string', enum: [...PERMISSIONS] });
    assert.deepEqual(meSchema?.properties?.roles?.items?.properties?.role?.enum, [...ROLES]);
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.body, /swagger/i);
  });

  it('answers malformed JSON with a 400 problem', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username": "admin", ',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(problem(response).code, 'validation_failed');
  });

  it('answers a schema violation with errors[] paths', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: 'admin' } });
    assert.equal(response.statusCode, 400);
    const body = problem(response);
    assert.equal(body.code, 'validation_failed');
    assert.deepEqual(
      body.errors?.map((e) => e.path),
      ['/password'],
    );
  });

  it('answers an unknown route with a 404 problem', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    assert.equal(response.statusCode, 404);
    assert.equal(problem(response).code, 'not_found');
  });

  it('answers a wrong content type with a 415 problem', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'text/plain' },
      payload: 'username=admin',
    });
    assert.equal(response.statusCode, 415);
    assert.equal(problem(response).code, 'unsupported_media_type');
  });

  it('answers a body above the limit with a 413 problem', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'a'.repeat(10 * 1024 * 1024), password: 'x' }),
    });
    assert.equal(response.statusCode, 413);
    assert.equal(problem(response).code, 'payload_too_large');
  });
});

describeEachDatabase('migrations', (kind) => {
  it('start twice on the same database: migrations are idempotent and the first admin is created once', async () => {
    const db = await createTestDatabase(kind);
    try {
      const first = await buildTestApp(kind, { testDatabase: db });
      await first.close();
      const second = await buildTestApp(kind, { testDatabase: db });
      try {
        const users = await second.database.db.selectFrom('users').select('username').execute();
        assert.deepEqual(
          users.map((u) => u.username),
          ['admin'],
        );
        const ready = await second.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 200);
      } finally {
        await second.close();
      }
    } finally {
      await db.dispose();
    }
  });
});

// Several instances share one database only on PostgreSQL (SQLite is the single-instance embedded mode).
for (const kind of databaseKinds().filter((k) => k === 'postgres')) {
  describe(`several instances [${kind}]`, () => {
    it('two instances starting at once on one database both come up', async () => {
      const db = await createTestDatabase(kind);
      try {
        const [a, b] = await Promise.all([
          buildTestApp(kind, { testDatabase: db }),
          buildTestApp(kind, { testDatabase: db }),
        ]);
        const users = await a.database.db.selectFrom('users').select('username').execute();
        assert.equal(users.length, 1);
        await Promise.all([a.close(), b.close()]);
      } finally {
        await db.dispose();
      }
    });
  });
}

describe('configuration', () => {
  it('rejects a bad value naming the variable', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.js');
    assert.throws(
      () => loadConfig({ PORT: 'eighty' }),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith('PORT:'),
    );
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL/);
    assert.throws(() => loadConfig({ FIELDLENS_JWT_SECRET: 'short' }), /FIELDLENS_JWT_SECRET/);
    assert.throws(() => loadConfig({ FIELDLENS_SAMPLE_DATA: 'maybe' }), /FIELDLENS_SAMPLE_DATA/);
    assert.throws(
      () => loadConfig({ FIELDLENS_SEVERITY_HIGH: '0.3', FIELDLENS_SEVERITY_MEDIUM: '0.5' }),
      /FIELDLENS_SEVERITY_MEDIUM/,
    );
    assert.throws(() => loadConfig({ FIELDLENS_INDEX_THREADS: '0' }), /FIELDLENS_INDEX_THREADS/);
    assert.equal(loadConfig({ FIELDLENS_INDEX_THREADS: '4' }).indexThreads, 4);
    const defaults = loadConfig({});
    assert.ok(defaults.indexThreads >= 1 && defaults.indexThreads <= 2);
    assert.equal(defaults.port, 8080);
    assert.equal(defaults.host, '127.0.0.1');
    assert.equal(defaults.database.kind, 'sqlite');
    assert.equal(defaults.auth.accessTokenTtlSeconds, 900);
    assert.ok(Object.isFrozen(defaults.auth));
  });

  it('stops the CLI start with one clear line', async () => {
    const { spawnSync } = await import('node:child_process');
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      env: { ...process.env, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(result.status, 1);
    assert.equal(
      result.stderr.trim(),
      'fieldlens: invalid configuration: PORT: must be a whole number, got "not-a-port"',
    );
  });
});
