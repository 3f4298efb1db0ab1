/**
 * Issue 31 ("scans name tables not sampled and why") and issue 30 item 3 in the console: a data source's page says
 * next to a scan's status and in its history that the scan did not take everything whole, and lists each table or
 * column with why, with unsafe characters of names shown escaped (never a raw bidi override). Debian's Chromium.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, json, type TestApp } from '../helpers/app.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations } from './harness.js';

describe('console: what a scan could not take whole [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let scanDir: string;

  before(async () => {
    ensureConsoleBuilt();
    scanDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-console-notes-'));
    t = await buildTestApp('sqlite', { env: { FIELDLENS_SCAN_SQLITE_DIR: scanDir } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    ({ browser, close: closeBrowser } = await launchBrowser());
  });
  after(async () => {
    await closeBrowser?.();
    await t?.close();
    if (scanDir) fs.rmSync(scanDir, { recursive: true, force: true });
  });

  it("shows the scan's notes: skipped tables and columns with why, names escaped, a summary in the history", async () => {
    const file = path.join(scanDir, 'odd.db');
    const source = new BetterSqlite3(file);
    source.exec(`CREATE TABLE "${'L'.repeat(5000)}" (email TEXT);
      CREATE TABLE "pay\u202eroll" (iban TEXT);
      CREATE TABLE customers (email TEXT, "tab\there" TEXT, notes VARCHAR${'X'.repeat(200)});
      INSERT INTO customers (email, notes) VALUES ('ann@example.com', 'n');`);
    source.close();
    const token = await adminToken(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/datasources',
      headers: bearer(token),
      payload: { name: 'odd', type: 'sqlite', connection: { kind: 'sqlite', database: 'odd.db' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = json<{ id: string }>(created).id;
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/v1/datasources/${id}/scans`,
      headers: bearer(token),
      payload: {},
    });
    assert.equal(started.statusCode, 202, started.body);
    await t.app.services.scanWorker.drain();

    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      await page.goto(`${base}/datasources/${id}`);
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Password').fill(ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('[data-testid="scan-progress"][data-status="succeeded"]').waitFor();

      assert.equal(
        (await page.getByTestId('scan-notes-summary').innerText()).trim(),
        '2 tables skipped, 1 column skipped, 1 comment or type cut',
      );
      const notes = page.getByTestId('scan-notes');
      const rows = notes.locator('tbody tr');
      assert.equal(await rows.count(), 4);
      const text = await notes.innerText();
      assert.match(text, /pay\\u\{202E\}roll/);
      assert.match(text, /L{80}… \(5000 characters\)/);
      assert.match(text, /tab\\u\{9\}here/);
      assert.match(text, /the name holds control or bidirectional-override characters/);
      assert.match(text, /declared type cut to 128 characters/);
      assert.equal(text.includes('\u202e'), false, 'no raw bidi override reaches the page');
      assert.equal(
        (await page.getByTestId('scan-history-notes').first().innerText()).trim(),
        '2 tables skipped, 1 column skipped, 1 comment or type cut',
      );
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, 'datasource-scan-notes');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
