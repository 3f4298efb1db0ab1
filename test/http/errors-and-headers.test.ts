import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, it } from 'node:test';
import { adminToken, bearer, buildTestApp, json, problem, ADMIN_PASSWORD, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

/** Sends raw bytes on a fresh TCP connection (no client library normalises the path or the headers) and answers what comes back. */
function rawHttp(
  port: number,
  text: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      if (status === 0) reject(new Error(`no HTTP answer: ${JSON.stringify(data)}`));
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
  });
}

function assertProblem(
  answer: { status: number; headers: Record<string, string>; body: string },
  status: number,
  code: string,
): void {
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.headers['content-type'] ?? '', /^application\/problem\+json/);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  const body = JSON.parse(answer.body) as { status: number; code: string; type: string };
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.type, `https://fieldlens.dev/problems/${code}`);
}

describeEachDatabase('errors that arise before a route runs', (kind) => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await buildTestApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  after(async () => t.close());

  it('answers a URL with invalid percent-encoding 400 problem+json, not {error, statusCode}', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/fields/%ff' });
    assert.equal(response.statusCode, 400);
    assert.equal(problem(response).code, 'validation_failed');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
  });

  it('answers an over-long path segment 414 problem+json', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/api/v1/fields/${'a'.repeat(150)}` });
    assert.equal(response.statusCode, 414);
    assert.equal(problem(response).code, 'uri_too_long');
  });

  it('answers headers larger than the HTTP parser takes 431 problem+json (Node clientError path)', async () => {
    const answer = await rawHttp(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertProblem(answer, 431, 'headers_too_large');
  });

  it('answers a request that is not HTTP 400 problem+json', async () => {
    const answer = await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nthis is no header\r\n\r\n');
    assertProblem(answer, 400, 'validation_failed');
  });

  it('answers malformed JSON 400 problem+json', async () => {
    const answer = await rawHttp(
      port,
      'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":',
    );
    assertProblem(answer, 400, 'validation_failed');
  });

  it('answers a dot-dot path sent as-is under /docs/static 404, not 500', async () => {
    for (const path of [
      '/docs/static/%2e%2e/package.json',
      '/docs/static/../../package.json',
      '/docs/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    ]) {
      const answer = await rawHttp(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assertProblem(answer, 404, 'not_found');
      assert.doesNotMatch(answer.body, /"name":\s*"fieldlens"|root:/);
    }
  });

  it('answers unknown paths 404 problem+json, under /api and outside it', async () => {
    for (const url of ['/api/v1/nothing-here', '/api/nothing', '/nothing-here']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404);
      assert.equal(problem(response).code, 'not_found');
    }
  });
});

describeEachDatabase('response headers', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('sends Cache-Control: no-store with tokens (login, refresh) and with user data', async () => {
    const loggedIn = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    assert.equal(loggedIn.statusCode, 200);
    assert.equal(loggedIn.headers['cache-control'], 'no-store');
    const { refresh_token, access_token } = json<{ refresh_token: string; access_token: string }>(loggedIn);
    const refreshed = await t.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token } });
    assert.equal(refreshed.statusCode, 200);
    assert.equal(refreshed.headers['cache-control'], 'no-store');
    for (const url of ['/api/v1/auth/me', '/api/v1/users', '/api/v1/fields']) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(access_token) });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['cache-control'], 'no-store', url);
    }
    const refused = await t.app.inject({ method: 'GET', url: '/api/v1/users' });
    assert.equal(refused.headers['cache-control'], 'no-store');
  });

  it('sends X-Content-Type-Options: nosniff on every response: API, errors, probes, docs', async () => {
    const token = await adminToken(t.app);
    for (const [url, headers] of [
      ['/api/v1/auth/me', bearer(token)],
      ['/api/v1/auth/me', {}],
      ['/healthz', {}],
      ['/readyz', {}],
      ['/openapi.json', {}],
      ['/docs/', {}],
      ['/docs/static/swagger-ui.css', {}],
      ['/nothing-here', {}],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url, headers });
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    }
  });

  it('sends a Content-Security-Policy without inline scripts, for a console at / and the Swagger UI at /docs', async () => {
    for (const url of ['/', '/docs/', '/docs/static/swagger-initializer.js']) {
      const response = await t.app.inject({ method: 'GET', url });
      const csp = String(response.headers['content-security-policy']);
      const directives = new Map(
        csp
          .split(';')
          .map((part) => part.trim().split(/\s+/))
          .filter((words) => words[0])
          .map(([name = '', ...values]) => [name, values]),
      );
      assert.deepEqual(directives.get('script-src'), ["'self'"], `${url}: ${csp}`);
      assert.deepEqual(directives.get('style-src'), ["'self'"], url);
      assert.deepEqual(directives.get('img-src'), ["'self'", 'data:'], url);
      assert.deepEqual(directives.get('connect-src'), ["'self'"], url);
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], url);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, url);
    }
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(ui.statusCode, 200);
    assert.doesNotMatch(
      ui.body,
      /<script>(?!\s*<\/script>)|<script(?![^>]*\bsrc=)[^>]*>\s*\S/,
      'the UI page has no inline script for the policy to block',
    );
    assert.equal(ui.headers['x-frame-options'], 'DENY');
  });
});

describeEachDatabase('input the database refuses as data', (kind) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(kind);
  });
  after(async () => t.close());

  it('answers a 4xx problem+json, never a 500, for values the schemas let through but the database cannot store or compare', async () => {
    const token = await adminToken(t.app);
    for (const url of [
      '/api/v1/fields?limit=Infinity',
      '/api/v1/audit-logs?limit=1e309',
      '/api/v1/fields?tag_id=99999999999999999999',
      '/api/v1/fields?level=L%00',
      '/api/v1/audit-logs?action=a%00b',
      '/api/v1/audit-logs?target_id=x%00',
    ]) {
      const response = await t.app.inject({ method: 'GET', url, headers: bearer(token) });
      assert.ok(response.statusCode < 500, `${url}: ${response.statusCode} ${response.body}`);
      if (response.statusCode >= 400) problem(response);
    }
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { username: 'ad\u0000min', password: 'whatever-passphrase' },
    });
    assert.ok(login.statusCode >= 400 && login.statusCode < 500, `${login.statusCode} ${login.body}`);
    problem(login);
  });
});
