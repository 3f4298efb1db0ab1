/**
 * The web console end to end: Debian's Chromium driven by playwright-core against the real service (buildApp on a fresh
 * SQLite database, listening on a free port) with the built console. What a reviewer, an observer and a superadmin do.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, json, type TestApp } from '../helpers/app.js';
import { createDatasource, importOk, manyFields, type FieldInput } from '../modules/fields/factories.js';
import { issueLicense, keyPair } from '../modules/license/license.helpers.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

const EMAIL = 'Personal/Contact/Email address';
const TIMESTAMP = 'Technical/Timestamp';
const ACCESS_TTL_MS = 900_000;

function crmCatalog(): FieldInput[] {
  const emails = ['email', 'email_address', 'contact_email', 'user_email', 'billing_email', 'work_email'];
  const times = ['created_at', 'updated_at', 'deleted_at', 'modified_at', 'inserted_at', 'processed_at'];
  return [
    ...emails.map((f, i) => ({
      table_name: `users_${i % 2}`,
      field_name: f,
      data_type: 'varchar',
      classification_chain_path: EMAIL,
    })),
    ...times.map((f, i) => ({
      table_name: `events_${i % 2}`,
      field_name: f,
      data_type: 'timestamp',
      classification_chain_path: TIMESTAMP,
    })),
    // Mislabelled: an e-mail column tagged as a timestamp, the queue's top suspect.
    {
      table_name: 'crm_contact',
      field_name: 'email',
      data_type: 'varchar',
      comment: 'e-mail address of the contact',
      classification_chain_path: TIMESTAMP,
    },
  ];
}

describe('web console [sqlite]', () => {
  const vendor = keyPair();
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let token: string;
  let crm: string;
  let bulk: string;
  let reviewer: { username: string; password: string };
  let observer: { username: string; password: string };
  const contexts: BrowserContext[] = [];
  let scanDir: string;

  before(async () => {
    ensureConsoleBuilt();
    scanDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-console-scan-'));
    t = await buildTestApp('sqlite', {
      env: { FIELDLENS_LICENSE_PUBLIC_KEY: vendor.publicPem, FIELDLENS_SCAN_SQLITE_DIR: scanDir },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    token = await adminToken(t.app);
    crm = await createDatasource(t.app, token, 'crm');
    await importOk(t.app, token, crm, crmCatalog());
    bulk = await createDatasource(t.app, token, 'warehouse');
    await importOk(t.app, token, bulk, manyFields(520, 'wh'));
    await t.app.services.metricsWorker.drain();
    reviewer = await createUser(t.app, ['operator'], { token, username: 'rita-reviewer' });
    observer = await createUser(t.app, ['observer'], { token, username: 'otto-observer' });
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
    if (scanDir) fs.rmSync(scanDir, { recursive: true, force: true });
  });

  /** A fresh browser profile (empty sessionStorage) whose page fails the test on any CSP violation or page error. */
  const newPage = (): Promise<{ page: Page; problems: string[] }> => watchedPage(browser, contexts);

  async function signIn(page: Page, username: string, password: string, path = '/queue'): Promise<void> {
    await page.goto(base + path);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor();
  }

  /** A field as the API has it (with a new admin token when the test moved the clock past the old one's lifetime). */
  async function field(
    id: string,
  ): Promise<{ review_status: string; classification_chain_path: string; level: string }> {
    let response = await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) });
    if (response.statusCode === 401) {
      token = await adminToken(t.app);
      response = await t.app.inject({ method: 'GET', url: `/api/v1/fields/${id}`, headers: bearer(token) });
    }
    assert.equal(response.statusCode, 200, response.body);
    return json(response);
  }

  async function apiCall(method: 'POST', url: string, payload: object): Promise<void> {
    token = await adminToken(t.app);
    const response = await t.app.inject({ method, url, headers: bearer(token), payload });
    assert.equal(response.statusCode, 200, response.body);
  }

  async function assertAccessible(page: Page, name: string): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 1)}`);
  }

  const rows = (page: Page) => page.locator('.queue .row[data-field-id]');

  it('signs in and shows the queue, most suspicious first, with six minibars per row', async () => {
    const { page, problems } = await newPage();
    await page.goto(base + '/');
    await page.getByRole('heading', { name: 'FieldLens' }).waitFor();
    await assertAccessible(page, 'sign-in');
    await screenshot(page, 'signin');
    await signIn(page, reviewer.username, reviewer.password, `/queue?datasource_id=${crm}`);
    await rows(page).first().locator('svg.minibars').waitFor();
    assert.equal(await rows(page).count(), 13);
    // Six bars per row, drawn against the page's baseline.
    assert.equal(await rows(page).first().locator('svg.minibars rect.bar').count(), 6);
    assert.equal(
      (await rows(page).first().locator('svg.minibars path.base').getAttribute('d'))?.match(/M/g)?.length,
      6,
    );
    const first = await rows(page).first().innerText();
    assert.match(first, /crm · crm_contact · email/);
    assert.match(first, /Technical\/Timestamp/);
    const scores = await rows(page).locator('.num').allInnerTexts();
    const numeric = scores.map(Number);
    assert.deepEqual(
      numeric,
      [...numeric].sort((a, b) => b - a),
      'outlier score descending',
    );
    assert.equal(new URL(page.url()).pathname, '/queue');
    await assertAccessible(page, 'queue');
    await screenshot(page, 'queue');
    assert.deepEqual(problems, []);
  });

  it('confirms one field, batch-confirms selected ones, defers with a reason, all by mouse', async () => {
    const { page, problems } = await newPage();
    await signIn(page, reviewer.username, reviewer.password, `/queue?datasource_id=${crm}`);
    await rows(page).first().locator('svg.minibars').waitFor();
    const ids = await rows(page).evaluateAll((trs) =>
      trs.map((tr) => (tr as unknown as { dataset: { fieldId: string } }).dataset.fieldId),
    );

    await rows(page)
      .nth(0)
      .getByRole('button', { name: /^Confirm crm/ })
      .click();
    await page.getByRole('status').filter({ hasText: 'Confirmed crm_contact.email' }).waitFor();
    assert.equal((await field(ids[0] as string)).review_status, 'confirmed');
    await rows(page).nth(0).getByText('confirmed').waitFor();

    await rows(page).nth(1).getByRole('checkbox').check();
    await rows(page).nth(2).getByRole('checkbox').check();
    await page.getByText('2 selected').waitFor();
    await page.getByTestId('batch-confirm').click();
    await page.getByRole('status').filter({ hasText: 'Confirmed 2, skipped 0, errors 0' }).waitFor();
    assert.equal((await field(ids[1] as string)).review_status, 'confirmed');
    assert.equal((await field(ids[2] as string)).review_status, 'confirmed');

    await rows(page)
      .nth(3)
      .getByRole('button', { name: /^Defer/ })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Defer this field' });
    await dialog.getByLabel('Reason (required)').fill('Ask the CRM owner what this column holds');
    await assertAccessible(page, 'defer dialog');
    await dialog.getByRole('button', { name: 'Defer' }).click();
    await page.getByRole('status').filter({ hasText: 'Deferred 1 field.' }).waitFor();
    assert.equal((await field(ids[3] as string)).review_status, 'deferred');
    assert.deepEqual(problems, []);
  });

  it('confirms with another tag and level chosen in the tag picker (the API offers no suggestions yet)', async () => {
    const { page, problems } = await newPage();
    await signIn(
      page,
      reviewer.username,
      reviewer.password,
      `/queue?datasource_id=${crm}&q=crm_contact&review_status=any`,
    );
    await rows(page).first().locator('svg.minibars').waitFor();
    const id = await rows(page).first().getAttribute('data-field-id');
    await rows(page)
      .first()
      .getByRole('button', { name: /^Change the tag or level of/ })
      .click();
    const dialog = page.getByRole('dialog');
    const picker = dialog.getByRole('combobox', { name: /^Tag/ });
    await picker.fill('contact email');
    await dialog.getByRole('option', { name: /Personal\/Contact\/Email address/ }).click();
    assert.equal(await picker.inputValue(), EMAIL);
    await dialog.getByLabel('Level').selectOption('L4');
    await assertAccessible(page, 'confirm-as dialog');
    await screenshot(page, 'confirm-as');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Confirmed crm_contact.email' }).waitFor();
    const after = await field(id as string);
    assert.equal(after.classification_chain_path, EMAIL);
    assert.equal(after.level, 'L4');
    await rows(page).first().locator('.path', { hasText: EMAIL }).waitFor();
    assert.deepEqual(problems, []);
  });

  it('works by keyboard: j/k move, x selects, c confirms, d defers', async () => {
    const { page, problems } = await newPage();
    await signIn(page, reviewer.username, reviewer.password, `/queue?datasource_id=${bulk}&limit=50`);
    await rows(page).first().locator('svg.minibars').waitFor();
    const ids = await rows(page).evaluateAll((trs) =>
      trs.map((tr) => (tr as unknown as { dataset: { fieldId: string } }).dataset.fieldId),
    );
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await rows(page).nth(1).and(page.locator('.active')).waitFor();
    await page.keyboard.press('c');
    await page.getByRole('status').filter({ hasText: 'Confirmed' }).waitFor();
    assert.equal((await field(ids[1] as string)).review_status, 'confirmed');

    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.keyboard.press('j');
    await page.keyboard.press('x');
    await page.getByText('2 selected').waitFor();
    await page.getByTestId('batch-confirm').click();
    await page.getByRole('status').filter({ hasText: 'Confirmed 2' }).waitFor();
    assert.equal((await field(ids[2] as string)).review_status, 'confirmed');
    assert.equal((await field(ids[3] as string)).review_status, 'confirmed');

    await page.keyboard.press('j');
    assert.equal(await page.locator('.row.active').getAttribute('data-field-id'), ids[4]);
    await page.keyboard.press('d');
    await page.getByLabel('Reason (required)').fill('Waiting for the data owner');
    await page.getByRole('dialog').getByRole('button', { name: 'Defer' }).click();
    await page.getByRole('status').filter({ hasText: 'Deferred 1 field.' }).waitFor();
    assert.equal((await field(ids[4] as string)).review_status, 'deferred');
    assert.equal((await field(ids[0] as string)).review_status, 'unreviewed');
    assert.deepEqual(problems, []);
  });

  it('shows a field with every axis, its nearest neighbour and its decision history', async () => {
    const { page, problems } = await newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD, `/queue?datasource_id=${crm}&q=created_at&review_status=any`);
    await rows(page).first().locator('svg.minibars').waitFor();
    await apiCall(
      'POST',
      `/api/v1/classify/fields/${await rows(page).first().getAttribute('data-field-id')}/confirm`,
      {},
    );
    await rows(page).first().locator('a').click();
    await page.getByRole('heading', { name: 'crm · events_0 · created_at' }).waitFor();
    const axes = page.locator('table.axes tbody tr');
    await axes.first().waitFor();
    assert.equal(await axes.count(), 6);
    await page.getByTestId('history').getByText('field.confirmed').waitFor();
    const nearest = page.getByText('Nearest field:').locator('a');
    assert.match((await nearest.getAttribute('href')) ?? '', /^\/fields\/[0-9a-f-]{36}$/);
    await assertAccessible(page, 'field detail');
    await screenshot(page, 'field');
    await nearest.click();
    await page.locator('table.axes').waitFor();
    assert.match(new URL(page.url()).pathname, /^\/fields\//);
    assert.deepEqual(problems, []);
  });

  it('gives an observer a read-only view: no decision controls, keys do nothing, the audit history explained', async () => {
    const { page, problems } = await newPage();
    await signIn(page, observer.username, observer.password, `/queue?datasource_id=${bulk}`);
    await rows(page).first().locator('svg.minibars').waitFor();
    await page.getByTestId('read-only').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Confirm/ }).count(), 0);
    assert.equal(await page.getByRole('checkbox').count(), 0);
    const id = await rows(page).first().getAttribute('data-field-id');
    await page.keyboard.press('c');
    assert.equal((await field(id as string)).review_status, 'unreviewed');
    const nav = await page.getByRole('navigation', { name: 'Main' }).innerText();
    assert.doesNotMatch(nav, /License|Users|Audit/);
    await assertAccessible(page, 'observer queue');
    await screenshot(page, 'observer-queue');
    await rows(page).first().locator('a').click();
    await page.getByText('needs the permission').waitFor();
    assert.match(await page.locator('[data-code="forbidden"]').innerText(), /audit:read/);
    // A page the role does not reach is explained, not blank.
    await page.goto(base + '/license');
    await page.getByText('The license page needs the permission').waitFor();
    assert.deepEqual(problems, []);
  });

  it('imports a license file as a superadmin and shows the new tier, quotas and features', async () => {
    const { page, problems } = await newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD, '/license');
    await page.getByTestId('tier').filter({ hasText: 'trial_mock' }).waitFor();
    const file = issueLicense(vendor, t.clock.now(), {
      sku_tier: 'enterprise',
      customer_name: 'ACME Corp',
      quotas: { max_datasources: 10, max_users: 20 },
    });
    await page
      .getByLabel('License file (.service-license)')
      .setInputFiles({ name: 'acme.service-license', mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').filter({ hasText: 'Imported: tier enterprise' }).waitFor();
    await page.getByTestId('tier').filter({ hasText: 'enterprise' }).waitFor();
    await page.getByText('ACME Corp').waitFor();
    await page.getByRole('img', { name: 'Data sources: 2 of 10' }).waitFor();
    await assertAccessible(page, 'license');
    await screenshot(page, 'license');

    // A bad file is refused in words, and the license in force stays.
    await page.getByLabel('License file (.service-license)').setInputFiles({
      name: 'bad.service-license',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('not a license'),
    });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('alert').filter({ hasText: 'The license file was refused.' }).waitFor();
    await page.getByTestId('tier').filter({ hasText: 'enterprise' }).waitFor();
    assert.deepEqual(problems, []);
  });

  it('renders every admin page accessibly (overview, data sources, audit with export, users)', async () => {
    const { page, problems } = await newPage();
    // Decisions of today for the progress over time.
    const [one, two] = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${bulk}&limit=2&sort=name`,
        headers: bearer(await adminToken(t.app)),
      })
    ).json<{ items: { id: string }[] }>().items;
    await apiCall('POST', `/api/v1/classify/fields/${one?.id}/confirm`, {});
    await apiCall('POST', `/api/v1/classify/fields/${two?.id}/defer`, { reason: 'Checked by the overview test' });
    await signIn(page, 'admin', ADMIN_PASSWORD, '/overview');
    await page.getByRole('heading', { name: 'Review progress' }).waitFor();
    await page.getByRole('img', { name: /Confirmed fields: \d+ of 533/ }).waitFor();
    // Progress over time: today's decisions (the tests above confirmed and deferred fields) as the API counts them.
    const chart = page.getByTestId('progress-chart');
    assert.match(
      (await chart.getAttribute('aria-label')) ?? '',
      /^Review progress per day from \S+ to \S+: [1-9]\d* decisions; confirmed share from/,
    );
    const progress = (
      await t.app.inject({ method: 'GET', url: '/api/v1/review/progress', headers: bearer(await adminToken(t.app)) })
    ).json<{
      buckets: Array<{ confirmed: number; deferred: number; confirmed_fields: number }>;
    }>();
    const today = progress.buckets.at(-1);
    assert.ok(today && today.confirmed > 0 && today.deferred > 0);
    await screenshot(page, 'overview');
    await page.getByText('Show the numbers').click();
    const cells = await page.locator('table.progress-table tbody tr').last().locator('td').allInnerTexts();
    assert.deepEqual(cells.slice(0, 3).map(Number), [today.confirmed, today.deferred, today.confirmed_fields]);
    await page.getByLabel('Over time').selectOption('week');
    await page.locator('table.progress-table th', { hasText: 'Week of' }).waitFor();
    assert.match((await chart.getAttribute('aria-label')) ?? '', /^Review progress per week/);
    await assertAccessible(page, 'overview');

    await page.getByRole('link', { name: 'Data sources' }).click();
    await page.getByRole('columnheader', { name: 'Connection' }).waitFor();
    await page.getByLabel('Name').fill('billing');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').filter({ hasText: 'Created data source billing.' }).waitFor();
    await page.getByRole('cell', { name: 'billing', exact: true }).waitFor();
    await assertAccessible(page, 'data sources');
    await screenshot(page, 'datasources');

    const deferred = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/fields?datasource_id=' + crm + '&limit=1&sort=name',
        headers: bearer(await adminToken(t.app)),
      })
    ).json<{ items: { id: string }[] }>().items[0]?.id;
    await apiCall('POST', `/api/v1/classify/fields/${deferred}/defer`, { reason: 'Checked by the audit test' });
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('cell', { name: 'user.created' }).first().waitFor();
    await page.getByLabel('Action').fill('field.deferred');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The unfiltered page already shows the deferral: wait until the filtered answer has replaced every row.
    await page
      .locator('table.audit tbody tr')
      .filter({ hasNotText: 'field.deferred' })
      .first()
      .waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'field.deferred' }).first().waitFor();
    const shown = await page.locator('table.audit tbody tr').count();
    assert.equal(await page.getByRole('cell', { name: 'field.deferred' }).count(), shown);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export NDJSON' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), 'fieldlens-audit.ndjson');
    const lines = (await streamText(await file.createReadStream()))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string });
    assert.equal(lines.length, shown);
    assert.ok(lines.every((l) => l.action === 'field.deferred'));
    await assertAccessible(page, 'audit');
    await screenshot(page, 'audit');

    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('cell', { name: 'otto-observer', exact: true }).waitFor();
    await page.getByLabel('Username').fill('dora-dba');
    await page.getByLabel('E-mail').fill('dora@example.com');
    await page.getByLabel('Password (12 characters or more)').fill('a long passphrase for dora');
    await page.getByRole('form', { name: 'New user' }).getByLabel('dba').check();
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('status').filter({ hasText: 'Created user dora-dba.' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'dora-dba' });
    await row.getByRole('button', { name: 'Disable dora-dba' }).click();
    await row.getByRole('cell', { name: 'disabled' }).waitFor();
    await assertAccessible(page, 'users');
    await screenshot(page, 'users');
    assert.deepEqual(problems, []);
  });

  it('refreshes an expired access token and retries; a session that ended asks to sign in again over the same page', async () => {
    const { page, problems } = await newPage();
    const refreshes: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/v1/auth/refresh')) refreshes.push(r.status());
    });
    await signIn(page, reviewer.username, reviewer.password, `/queue?datasource_id=${bulk}&limit=50`);
    await rows(page).first().locator('svg.minibars').waitFor();

    // The server's clock passes the access token's lifetime: the next call is 401 token_expired, refreshed and retried.
    t.clock.advance(ACCESS_TTL_MS + 1000);
    await page.getByRole('link', { name: 'Overview' }).click();
    // The overview's figures come from the API: they are shown once the expired call was refreshed and retried.
    await page.getByRole('img', { name: /^Confirmed fields: \d+ of \d+$/ }).waitFor();
    assert.deepEqual(refreshes, [200]);

    // Past the refresh token's absolute lifetime the session is over: a decision asks for the password, then goes through.
    await page.goBack();
    await rows(page).first().locator('svg.minibars').waitFor();
    await rows(page).nth(5).getByRole('checkbox').check();
    await rows(page).nth(6).getByRole('checkbox').check();
    const ids = [
      await rows(page).nth(5).getAttribute('data-field-id'),
      await rows(page).nth(6).getAttribute('data-field-id'),
    ];
    t.clock.advance(8 * 24 * 3600 * 1000);
    await page.getByTestId('batch-confirm').click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.getByLabel('Password').fill(reviewer.password);
    await assertAccessible(page, 'session dialog');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('status').filter({ hasText: 'Confirmed 2' }).waitFor();
    for (const id of ids) assert.equal((await field(id as string)).review_status, 'confirmed');
    assert.deepEqual(refreshes, [200, 401]);
    assert.deepEqual(problems, []);
  });

  it('refreshes in the background before the access token expires, and signs out', async () => {
    const { page, problems } = await newPage();
    await page.clock.install();
    await signIn(page, reviewer.username, reviewer.password, `/overview`);
    await page.getByRole('heading', { name: 'Review progress' }).waitFor();
    const refreshed = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/refresh'));
    await page.clock.runFor(ACCESS_TTL_MS - 60_000);
    assert.equal((await refreshed).status(), 200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    assert.deepEqual(problems, []);
  });

  it('renders a queue page of 500 rows windowed: the grid tells its size, scrolling and j/k reach every row', async () => {
    // How long the render takes is measured in bench/console.ts, not here.
    const { page, problems } = await newPage();
    await signIn(
      page,
      observer.username,
      observer.password,
      `/queue?datasource_id=${bulk}&limit=500&review_status=any`,
    );
    await page.locator('body[data-queue-rows="500"]').waitFor();

    // Only a screenful (and a margin) is in the page, but the grid says it has 500 rows and each row says which it is.
    const grid = page.getByRole('grid', { name: 'Fields to review' });
    assert.equal(await grid.getAttribute('aria-rowcount'), '501');
    const drawn = await rows(page).count();
    assert.ok(drawn >= 10 && drawn < 60, `${drawn} rows drawn`);
    assert.equal(await page.locator('svg.minibars').count(), drawn);
    assert.equal(await rows(page).first().getAttribute('aria-rowindex'), '2');
    const api = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${bulk}&limit=500&sort=outlier_score`,
        headers: bearer(await adminToken(t.app)),
      })
    )
      .json<{ items: { id: string }[] }>()
      .items.map((f) => f.id);

    // Scrolled to the end, the last row is drawn in its place, with its minibars.
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    const last = page.locator('.queue .row[aria-rowindex="501"]');
    await last.locator('svg.minibars').waitFor();
    assert.equal(await last.getAttribute('data-field-id'), api[499]);
    assert.ok((await rows(page).count()) < 60);
    await assertAccessible(page, 'queue of 500, scrolled');

    // Back at the top, j moves the current row past the first window: it is drawn, in view and focused.
    await page.evaluate('window.scrollTo(0, 0)');
    await rows(page).first().locator('svg.minibars').waitFor();
    await rows(page).first().locator('.num').click();
    for (let i = 0; i < 45; i++) await page.keyboard.press('j');
    const current = page.locator('.queue .row.active');
    await page.locator('.queue .row.active[aria-rowindex="47"]').waitFor();
    assert.equal(await current.getAttribute('data-field-id'), api[45]);
    const box = await current.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= 900, `current row in view: ${JSON.stringify(box)}`);
    assert.equal(await page.evaluate(`document.activeElement?.getAttribute('aria-rowindex')`), '47');
    for (let i = 0; i < 5; i++) await page.keyboard.press('k');
    await page.locator('.queue .row.active[aria-rowindex="42"]').waitFor();
    assert.deepEqual(problems, []);
  });

  it('creates a data source with a SQLite connection, tests it, scans it with live progress, cancels a scan and shows the history', async () => {
    const file = path.join(scanDir, 'shop.db');
    const source = new BetterSqlite3(file);
    source.exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT, full_name TEXT, created_at TEXT);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, shipped_at TEXT);`);
    for (let i = 1; i <= 20; i++) {
      source
        .prepare('INSERT INTO customers VALUES (?, ?, ?, ?)')
        .run(i, `person${i}@example.com`, `Person Number${i}`, `2024-01-${String(i).padStart(2, '0')}`);
      source
        .prepare('INSERT INTO orders VALUES (?, ?, ?, ?)')
        .run(i, i, i * 9.5, `2024-02-${String(i).padStart(2, '0')}`);
    }
    source.close();

    const { page, problems } = await newPage();
    await signIn(page, 'admin', ADMIN_PASSWORD, '/datasources');
    const form = page.getByRole('form', { name: 'New data source' });
    await form.getByLabel('Name', { exact: true }).fill('shop');
    await form.getByLabel('Database', { exact: true }).selectOption('sqlite');
    await form.getByLabel(/^Connect to it for scans/).check();
    await form.getByLabel(/^File/).fill(file);
    await assertAccessible(page, 'new data source with a connection');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { name: 'shop' }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/datasources\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/')[2] as string;
    assert.equal(await page.getByTestId('connection').innerText(), `sqlite · ${file}`);
    await page.getByTestId('no-scan-history').waitFor();

    await page.getByRole('button', { name: 'Test connection' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Connected: \S+/ })
      .waitFor();

    // Started, the scan waits in the queue; the worker runs it and the page, polling, shows it finish.
    await page.getByRole('button', { name: 'Start scan' }).click();
    await page.locator('[data-testid="scan-progress"][data-status="queued"]').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start scan' }).isDisabled(), true);
    await t.app.services.scanWorker.drain();
    await page.locator('[data-testid="scan-progress"][data-status="succeeded"]').waitFor();
    const scans = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/datasources/${id}/scans`,
        headers: bearer(await adminToken(t.app)),
      })
    ).json<{
      items: Array<{ status: string; counts: { new: number; classified: number }; progress: { tables_total: number } }>;
    }>().items;
    assert.equal(scans[0]?.status, 'succeeded');
    assert.equal(scans[0]?.counts.new, 8);
    assert.equal(
      await page.getByTestId('scan-counts').innerText(),
      `New 8, changed 0, removed 0, unchanged 0; classified ${scans[0]?.counts.classified}.`,
    );
    assert.equal(await page.getByRole('progressbar').getAttribute('aria-label'), 'Scan progress: 2 of 2 tables');
    await page.locator('table.scans tbody tr').filter({ hasText: 'succeeded' }).waitFor();
    await assertAccessible(page, 'data source with scans');
    await screenshot(page, 'datasource-scans');

    // A second scan, cancelled before a worker takes it.
    await page.getByRole('button', { name: 'Start scan' }).click();
    await page.locator('[data-testid="scan-progress"][data-status="queued"]').waitFor();
    await page.getByRole('button', { name: 'Cancel scan' }).click();
    await page.getByRole('status').filter({ hasText: 'Scan cancelled.' }).waitFor();
    await page.locator('table.scans tbody tr').filter({ hasText: 'cancelled' }).waitFor();
    assert.equal(await page.locator('table.scans tbody tr').count(), 2);
    await t.app.services.scanWorker.drain();
    const statuses = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/datasources/${id}/scans`,
        headers: bearer(await adminToken(t.app)),
      })
    )
      .json<{ items: Array<{ status: string }> }>()
      .items.map((s) => s.status);
    assert.deepEqual(statuses.sort(), ['cancelled', 'succeeded']);

    // The scanned columns are in the review queue.
    await page.getByRole('link', { name: '8' }).click();
    await rows(page).first().waitFor();
    assert.equal(await rows(page).count(), 8);
    assert.deepEqual(problems, []);
  });

  it('accepts a suggested classification in one action (button and key a)', async () => {
    const leads = await createDatasource(t.app, await adminToken(t.app), 'leads');
    const emails = ['email', 'email_address', 'contact_email', 'lead_email', 'owner_email', 'reply_to_email'];
    await importOk(t.app, await adminToken(t.app), leads, [
      ...emails.map((f) => ({
        table_name: 'leads',
        field_name: f,
        data_type: 'varchar',
        classification_chain_path: EMAIL,
      })),
      ...['created_at', 'updated_at', 'converted_at'].map((f) => ({
        table_name: 'leads',
        field_name: f,
        data_type: 'timestamp',
        classification_chain_path: TIMESTAMP,
      })),
      // Mislabelled twice over: e-mail addresses tagged as timestamps.
      {
        table_name: 'lead_contacts',
        field_name: 'email',
        data_type: 'varchar',
        comment: 'e-mail address of the lead',
        classification_chain_path: TIMESTAMP,
      },
      {
        table_name: 'lead_contacts',
        field_name: 'secondary_email',
        data_type: 'varchar',
        comment: 'another e-mail address of the lead',
        classification_chain_path: TIMESTAMP,
      },
    ]);
    await t.app.services.metricsWorker.drain();
    const listed = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/fields?datasource_id=${leads}&q=lead_contacts&limit=10&sort=name`,
        headers: bearer(await adminToken(t.app)),
      })
    ).json<{
      items: Array<{
        id: string;
        field_name: string;
        suggested_classification: { tag_id: number; chain_path: string; level: string } | null;
      }>;
    }>().items;
    const [first, second] = listed;
    assert.ok(first?.suggested_classification && second?.suggested_classification, JSON.stringify(listed));

    const { page, problems } = await newPage();
    await signIn(page, reviewer.username, reviewer.password, `/queue?datasource_id=${leads}&q=lead_contacts`);
    await rows(page).first().locator('svg.minibars').waitFor();
    const row = page.locator(`.queue .row[data-field-id="${first.id}"]`);
    await row.locator('.suggestion', { hasText: first.suggested_classification.chain_path }).waitFor();
    await assertAccessible(page, 'queue with suggestions');
    await screenshot(page, 'queue-suggestion');
    await row.getByRole('button', { name: /^Accept suggestion for/ }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Confirmed lead_contacts.${first.field_name}` })
      .waitFor();
    const accepted = await field(first.id);
    assert.equal(accepted.review_status, 'confirmed');
    assert.equal(accepted.classification_chain_path, first.suggested_classification.chain_path);
    assert.equal(accepted.level, first.suggested_classification.level);

    // By keyboard: the current row's suggestion with a.
    const index = Number(await page.locator(`.queue .row[data-field-id="${second.id}"]`).getAttribute('data-index'));
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    for (let i = 0; i < index; i++) await page.keyboard.press('j');
    await page.locator(`.queue .row.active[data-field-id="${second.id}"]`).waitFor();
    await page.keyboard.press('a');
    await page
      .getByRole('status')
      .filter({ hasText: `Confirmed lead_contacts.${second.field_name}` })
      .waitFor();
    const keyed = await field(second.id);
    assert.equal(keyed.classification_chain_path, second.suggested_classification.chain_path);
    assert.equal(keyed.level, second.suggested_classification.level);
    assert.deepEqual(problems, []);
  });
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
