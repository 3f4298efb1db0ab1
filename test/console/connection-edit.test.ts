/**
 * The data-source page's connection editor in Chromium against the real service: an admin moves a connection to
 * another port without entering the password; the form warns before saving, the page shows the server's notice after,
 * and the next connection test reaches the new address without the old password (fake PostgreSQL servers record it).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, json, type TestApp } from '../helpers/app.js';
import { startFakePgServer, type FakePgServer } from '../fixtures/fake-pg-server.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations } from './harness.js';

describe('console: editing a data source connection [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let home: FakePgServer;
  let elsewhere: FakePgServer;
  const secret = `console-${randomBytes(6).toString('hex')}-password`;

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite', { env: { FIELDLENS_SECRET_KEY: randomBytes(32).toString('base64') } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    home = await startFakePgServer({ serverVersion: '16.4 home' });
    elsewhere = await startFakePgServer({ serverVersion: '16.4 elsewhere' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    await closeBrowser?.();
    await home?.close();
    await elsewhere?.close();
    await t?.close();
  });

  it('warns before a move drops the password, shows the notice after, and the old password never reaches the new port', async () => {
    const token = await adminToken(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: bearer(token),
      payload: {
        name: 'orders',
        type: 'postgresql',
        connection: {
          kind: 'postgresql',
          host: '127.0.0.1',
          port: home.port,
          database: 'orders',
          user: 'scan',
          password: secret,
          include_tables: ['orders*'],
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = json<{ id: string }>(created).id;

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
      });
      await page.goto(`${base}/datasources/${id}`);
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('connection').waitFor();

      await page.getByRole('button', { name: 'Edit connection' }).click();
      const editor = page.getByTestId('connection-editor');
      await editor.waitFor();
      assert.equal(await page.getByTestId('password-will-drop').count(), 0, 'no warning while the destination stays');
      await page.getByLabel('Port').fill(String(elsewhere.port));
      await page.getByTestId('password-will-drop').waitFor();
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, 'datasource-connection-edit');
      await page.getByRole('button', { name: 'Save connection' }).click();

      const notice = page.getByTestId('password-dropped');
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /Password removed.*port changed/);
      await page.getByText('Connection saved.').waitFor();
      assert.match((await page.getByTestId('connection').textContent()) ?? '', new RegExp(`:${elsewhere.port}/orders`));
      assert.equal(
        await page.getByText('stored (encrypted)').count(),
        0,
        'the page no longer claims a stored password',
      );

      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText(/Connected: PostgreSQL 16\.4 elsewhere/).waitFor();
      assert.equal(elsewhere.logins.length, 1);
      assert.ok(
        elsewhere.logins.every((l) => l.password !== secret),
        'the old password never reached the new port',
      );
      assert.equal(home.logins.length, 0);

      // The filters the form does not show were kept.
      const stored = await t.app.services.datasources.getScanTarget(id);
      assert.deepEqual(stored.connection?.include_tables, ['orders*']);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
