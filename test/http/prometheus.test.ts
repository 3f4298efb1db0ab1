import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { adminToken, bearer, buildTestApp, problem } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';

const TOKEN = 'metrics-scraper-token-0123456789';
const UNKNOWN_ID = '00000000-0000-4000-8000-00000000abcd';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describeEachDatabase('Prometheus /metrics', (kind) => {
  it('on the main port: 401 problem+json without the right bearer token; with it, requests by route pattern and status, failed logins, queue depth, pool, process', async () => {
    const t = await buildTestApp(kind, { env: { FIELDLENS_METRICS: 'on', FIELDLENS_METRICS_TOKEN: TOKEN } });
    try {
      for (const headers of [{}, bearer('wrong-token'), bearer(`${TOKEN}x`), { authorization: TOKEN }]) {
        const refused = await t.app.inject({ method: 'GET', url: '/metrics', headers });
        assert.equal(refused.statusCode, 401);
        assert.equal(problem(refused).code, 'unauthorized');
        assert.match(String(refused.headers['www-authenticate']), /^Bearer/);
      }
      const token = await adminToken(t.app);
      for (let i = 0; i < 3; i += 1) {
        assert.equal(
          (await t.app.inject({ method: 'GET', url: `/api/v1/fields/${UNKNOWN_ID}`, headers: bearer(token) }))
            .statusCode,
          404,
        );
      }
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'admin', password: 'not-the-right-passphrase' },
      });
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { username: 'nobody-at-all', password: 'not-the-right-passphrase' },
      });

      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const text = response.body;
      assert.equal(
        sample(text, 'fieldlens_http_request_duration_seconds_count', {
          method: 'GET',
          route: '/api/v1/fields/:id',
          status_code: '404',
        }),
        3,
      );
      assert.ok(
        (sample(text, 'fieldlens_http_request_duration_seconds_bucket', { route: '/api/v1/fields/:id', le: '+Inf' }) ??
          0) >= 3,
      );
      assert.ok(!text.includes(UNKNOWN_ID), 'raw URLs never become labels');
      assert.equal(sample(text, 'fieldlens_login_failures_total', { reason: 'invalid_credentials' }), 2);
      assert.equal(sample(text, 'fieldlens_metrics_queue_pending'), (await t.app.services.metrics.status()).pending);
      assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? -1) >= 0);
      assert.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined);
      if (kind === 'postgres') {
        assert.ok((sample(text, 'fieldlens_db_pool_connections', { state: 'total' }) ?? 0) >= 1);
        assert.ok(sample(text, 'fieldlens_db_pool_connections', { state: 'waiting' }) !== undefined);
      }
      // Scans by status: a scan asked for (no worker runs here) is counted as queued.
      assert.equal(sample(text, 'fieldlens_scans', { status: 'queued' }), 0);
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v1/datasources',
        headers: bearer(token),
        payload: {
          name: 'scanned',
          type: 'postgresql',
          connection: { kind: 'postgresql', host: '127.0.0.1', port: 1, database: 'crm', user: 'scanner' },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const scan = await t.app.inject({
        method: 'POST',
        url: `/api/v1/datasources/${created.json<{ id: string }>().id}/scans`,
        headers: bearer(token),
      });
      assert.equal(scan.statusCode, 202, scan.body);
      const scraped = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
      assert.equal(sample(scraped.body, 'fieldlens_scans', { status: 'queued' }), 1);
      assert.equal(sample(scraped.body, 'fieldlens_scans', { status: 'running' }), 0);

      // A later gauge plugs in through registerGauge.
      t.app.prometheus?.registerGauge('fieldlens_test_items', 'test gauge', ['status'], (set) =>
        set({ status: 'queued' }, 7),
      );
      const again = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
      assert.equal(sample(again.body, 'fieldlens_test_items', { status: 'queued' }), 7);
    } finally {
      await t.close();
    }
  });

  it('on a port of its own: served there, not on the API port, and closed with the app', async () => {
    const t = await buildTestApp(kind, { env: { FIELDLENS_METRICS: 'on', FIELDLENS_METRICS_PORT: '0' } });
    let port: number | undefined;
    try {
      port = t.app.prometheus?.address()?.port;
      assert.ok(port);
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(response.status, 200);
      assert.match(await response.text(), /fieldlens_metrics_queue_pending/);
      const other = await fetch(`http://127.0.0.1:${port}/api/v1/auth/me`);
      assert.equal(other.status, 404);
      assert.match(String(other.headers.get('content-type')), /^application\/problem\+json/);
      const main = await t.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(main.statusCode, 404);
    } finally {
      await t.close();
    }
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
  });

  it('is off by default', async () => {
    const t = await buildTestApp(kind);
    try {
      assert.equal((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
      assert.equal(t.app.prometheus, undefined);
    } finally {
      await t.close();
    }
  });
});

it('refuses FIELDLENS_METRICS=on with neither a token nor a port, and a short token', () => {
  assert.throws(() => loadConfig({ FIELDLENS_METRICS: 'on' }), ConfigError);
  assert.throws(() => loadConfig({ FIELDLENS_METRICS: 'on', FIELDLENS_METRICS_TOKEN: 'short' }), ConfigError);
  assert.deepEqual(loadConfig({ FIELDLENS_METRICS: 'on', FIELDLENS_METRICS_PORT: '9464' }).metrics, {
    enabled: true,
    token: undefined,
    port: 9464,
  });
});
