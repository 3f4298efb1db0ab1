/**
 * The data-source form guides (Debian's Chromium through playwright-core, the real service on SQLite): the database
 * kind is the only type, the SQLite file says which folder the server allows (or why SQLite is refused), a password
 * field says when the server cannot store one, and schema and table filters reach the stored connection. Checked with axe.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, type TestApp } from '../helpers/app.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations } from './harness.js';

interface Datasource {
  name: string;
  type: string;
  connection: Record<string, unknown> | null;
}

describe('console data-source form [sqlite]', () => {
  let withFolder: TestApp;
  let bare: TestApp;
  let scanDir: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    scanDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fl-form-scan-')));
    withFolder = await buildTestApp('sqlite', { env: { FIELDLENS_SCAN_SQLITE_DIR: scanDir } });
    bare = await buildTestApp('sqlite');
    for (const t of [withFolder, bare]) await t.app.listen({ port: 0, host: '127.0.0.1' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await withFolder?.close();
    await bare?.close();
    if (scanDir) fs.rmSync(scanDir, { recursive: true, force: true });
  });

  const baseOf = (t: TestApp) => `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;

  async function openForm(t: TestApp): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const options = page.waitForResponse((r) => r.url().endsWith('/api/v1/datasources/connection-options'));
    await page.goto(`${baseOf(t)}/datasources`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal((await options).status(), 200);
    await page.getByRole('form', { name: 'New data source' }).waitFor();
    return { page, problems };
  }

  async function stored(t: TestApp, name: string): Promise<Datasource | undefined> {
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/datasources',
      headers: bearer(await adminToken(t.app)),
    });
    return list.json<{ items: Datasource[] }>().items.find((d) => d.name === name);
  }

  async function assertAccessible(page: Page, name: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 1)}`);
  }

  it('has the database kind as the only type, and sends schema and table filters with a PostgreSQL connection', async () => {
    const { page, problems } = await openForm(withFolder);
    const form = page.getByRole('form', { name: 'New data source' });
    assert.equal(await form.getByLabel('Type', { exact: true }).count(), 0, 'no free-text type');
    const kinds = form.getByLabel('Database', { exact: true });
    assert.deepEqual(await kinds.locator('option').allInnerTexts(), ['PostgreSQL', 'MySQL or MariaDB', 'SQLite file']);

    await form.getByLabel('Name', { exact: true }).fill('Pagila');
    await kinds.selectOption('postgresql');
    await form.getByLabel(/^Connect to it for scans/).check();
    await form.getByLabel('Host', { exact: true }).fill('db.internal');
    assert.equal(await form.getByLabel('Port', { exact: true }).getAttribute('placeholder'), '5432');
    await form.getByLabel('Database name').fill('pagila');
    // No secret key on this server: the password cannot be stored, and the form says so before anyone types one.
    assert.equal(await form.getByLabel(/^Password/).isDisabled(), true);
    await form.getByText(/This server stores no passwords/).waitFor();
    await form.getByLabel('Only these schemas').fill('public, sales');
    await form.getByLabel('Skip these schemas').fill('tmp_*');
    await form.getByLabel('Only these tables').fill('customer, sales.order_*');
    await form.getByLabel('Skip these tables').fill('*_backup');
    await form.getByText(/\* matches any run of characters/).waitFor();
    await assertAccessible(page, 'postgresql connection');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Pagila' }).waitFor();
    // The data source's page shows what the scan will read.
    assert.equal(
      await page.getByTestId('connection').innerText(),
      'postgresql · db.internal/pagila · schemas public, sales; skipping schemas tmp_*; tables customer, sales.order_*; skipping tables *_backup',
    );

    const created = await stored(withFolder, 'Pagila');
    assert.equal(created?.type, 'postgresql');
    assert.deepEqual(created?.connection, {
      kind: 'postgresql',
      host: 'db.internal',
      database: 'pagila',
      include_schemas: ['public', 'sales'],
      exclude_schemas: ['tmp_*'],
      include_tables: ['customer', 'sales.order_*'],
      exclude_tables: ['*_backup'],
    });
    assert.deepEqual(problems, []);
  });

  it('names the allowed SQLite folder, offers no schema filters for SQLite, and stores the kind as the type', async () => {
    fs.writeFileSync(path.join(scanDir, 'chinook.db'), '');
    const { page, problems } = await openForm(withFolder);
    const form = page.getByRole('form', { name: 'New data source' });
    await form.getByLabel('Name', { exact: true }).fill('Chinook');
    await form.getByLabel('Database', { exact: true }).selectOption('sqlite');
    await form.getByLabel(/^Connect to it for scans/).check();
    const file = form.getByLabel('File', { exact: true });
    const hint = await page.locator(`#${await file.getAttribute('aria-describedby')}`).innerText();
    assert.equal(
      hint,
      `A path inside ${scanDir}, the folder this server allows SQLite files in (absolute, or relative to it).`,
    );
    assert.equal(await form.getByLabel('Only these schemas').count(), 0);
    assert.equal(await form.getByLabel('Host', { exact: true }).count(), 0);
    await file.fill('chinook.db');
    await form.getByLabel('Skip these tables').fill('sqlite_*');
    await assertAccessible(page, 'sqlite connection');
    await screenshot(page, 'datasource-form');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'Chinook' }).waitFor();
    const created = await stored(withFolder, 'Chinook');
    assert.equal(created?.type, 'sqlite');
    assert.deepEqual(created?.connection, { kind: 'sqlite', database: 'chinook.db', exclude_tables: ['sqlite_*'] });
    assert.deepEqual(problems, []);
  });

  it('says why SQLite is refused on a server without a folder, and still creates a source fed by the import API', async () => {
    const { page, problems } = await openForm(bare);
    const form = page.getByRole('form', { name: 'New data source' });
    await form.getByLabel('Name', { exact: true }).fill('legacy-files');
    const kinds = form.getByLabel('Database', { exact: true });
    await kinds.selectOption('sqlite');
    const reason = page.locator(`#${await kinds.getAttribute('aria-describedby')}`);
    assert.match(await reason.innerText(), /allows no SQLite files: its operator sets FIELDLENS_SCAN_SQLITE_DIR/);
    assert.equal(
      await form.getByLabel(/^Connect to it for scans/).count(),
      0,
      'no connection offered that would be refused',
    );
    await assertAccessible(page, 'sqlite refused');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'Created data source legacy-files.' }).waitFor();
    const created = await stored(bare, 'legacy-files');
    assert.equal(created?.type, 'sqlite');
    assert.equal(created?.connection, null);
    assert.deepEqual(problems, []);
  });
});
