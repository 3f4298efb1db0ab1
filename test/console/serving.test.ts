/** How the service serves the built console: caching, the client-route fallback, the CSP, and API 404s kept intact. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { after, before, it } from 'node:test';
import { CONSOLE_CSP, consoleRoutes } from '../../src/http/console.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { buildTestApp, problem, type TestApp } from '../helpers/app.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { ensureConsoleBuilt } from './harness.js';

const DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

describeEachDatabase('console serving', (kind) => {
  let t: TestApp;
  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp(kind);
  });
  after(() => t.close());

  it('answers / and client routes with index.html: revalidated, under a CSP without inline script or style', async () => {
    for (const url of [
      '/',
      '/queue',
      '/queue?severity=high',
      `/fields/${'0'.repeat(8)}-0000-4000-8000-000000000000`,
      `/datasources/${'0'.repeat(8)}-0000-4000-8000-000000000000`,
      '/license',
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, url);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers['cache-control'], 'no-cache');
      assert.equal(response.headers['content-security-policy'], CONSOLE_CSP);
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.match(response.body, /<div id="app"><\/div>/);
    }
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    // Every script is a file (no inline code), and no inline style: the CSP above would block them.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs ?? '', /\bsrc="\/assets\/[^"]+\.js"/);
      assert.equal(body?.trim(), '');
    }
    assert.doesNotMatch(html, /<style|\sstyle=/i);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')));
    for (const asset of assets) {
      const response = await t.app.inject({ method: 'GET', url: asset });
      assert.equal(response.statusCode, 200, asset);
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(response.body, fs.readFileSync(path.join(DIST, asset)).toString('utf8'));
    }
  });

  it('keeps problem+json 404s for unknown API paths and missing files; the API and its docs still answer', async () => {
    for (const url of ['/api/v1/nothing-here', '/api/other', '/api', '/assets/missing-1234.js', '/robots.txt']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(problem(response).code, 'not_found');
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/queue' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' })).statusCode, 401);
    assert.equal((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  });
});

it('says to build the console when web/dist is missing', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'fieldlens-no-console-'));
  const app = Fastify({ logger: false });
  registerErrorHandler(app);
  await app.register(consoleRoutes, { root: empty });
  try {
    const response = await app.inject({ method: 'GET', url: '/queue' });
    assert.equal(response.statusCode, 404);
    assert.match(problem(response).detail, /npm run build/);
    assert.equal(problem(await app.inject({ method: 'GET', url: '/api/v1/x' })).code, 'not_found');
  } finally {
    await app.close();
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
