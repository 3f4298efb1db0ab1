/**
 * The audit page as a person uses it (Debian's Chromium through playwright-core, the real service on SQLite): every
 * target shown by its name, filters by an action prefix, a user name and a target's name, exact about wildcards,
 * the export with the names; checked with axe. Writes the screenshot docs/console/audit.png shows.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { recordEvents } from '../modules/audit/factories.js';
import { createDatasource, importOk } from '../modules/fields/factories.js';
import {
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  seriousViolations,
  waitInPage,
  watchedPage,
} from './harness.js';

describe('console audit page [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let emailId: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const token = await adminToken(t.app);
    const pagila = await createDatasource(t.app, token, 'Pagila');
    const ids = (
      await importOk(t.app, token, pagila, [
        {
          table_name: 'public.customer',
          field_name: 'email',
          data_type: 'text',
          classification_chain_path: 'Technical/Record ID',
        },
        {
          table_name: 'public.customer',
          field_name: 'phone',
          data_type: 'text',
          classification_chain_path: 'Technical/Record ID',
        },
        {
          table_name: 'public.staff',
          field_name: 'username',
          data_type: 'text',
          classification_chain_path: 'Technical/Record ID',
        },
      ])
    ).field_ids;
    emailId = ids[0] as string;
    const rita = await createUser(t.app, ['operator'], { token, username: 'rita-reviewer' });
    const decide = (url: string, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: bearer(rita.token), payload });
    assert.equal((await decide(`/api/v1/classify/fields/${ids[0]}/confirm`, {})).statusCode, 200);
    assert.equal(
      (await decide(`/api/v1/classify/fields/${ids[1]}/defer`, { reason: 'Ask the data owner' })).statusCode,
      200,
    );
    assert.equal((await decide(`/api/v1/classify/fields/${ids[2]}/confirm`, {})).statusCode, 200);
    // Actions with LIKE's wildcards in their names: the page must take them literally.
    await recordEvents(t, [
      { action: 'test_event', targetType: 'thing', targetId: 'a' },
      { action: 'testXevent', targetType: 'thing', targetId: 'b' },
    ]);
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  const newPage = (): Promise<{ page: Page; problems: string[] }> =>
    watchedPage(browser, contexts, { acceptDownloads: true });

  const rows = (page: Page) => page.locator('table.audit tbody tr');
  const actions = async (page: Page) =>
    (await rows(page).locator('td:nth-child(4)').allInnerTexts()).map((s) => s.trim());

  /** Sets the filters, applies them and waits until the table shows the answer to exactly these filters. */
  async function filter(
    page: Page,
    values: { action?: string; actor?: string; target?: string },
    expectRows: number,
  ): Promise<void> {
    const answered = page.waitForResponse(
      (r) => r.url().includes('/api/v1/audit-logs?') && r.request().method() === 'GET',
    );
    await page.getByLabel('Action').fill(values.action ?? '');
    await page.getByLabel('Actor').fill(values.actor ?? '');
    await page.getByLabel('Target').fill(values.target ?? '');
    await page.getByRole('button', { name: 'Apply' }).click();
    const response = await answered;
    const query = new URL(response.url()).searchParams;
    assert.equal(query.get('action'), values.action ?? null);
    assert.equal(query.get('actor'), values.actor ?? null);
    assert.equal(query.get('target'), values.target ?? null);
    await waitInPage(page, `document.querySelectorAll('table.audit tbody tr').length === ${expectRows}`);
  }

  it('shows each target by name, filters by action prefix, user name and target name, and exports the names', async () => {
    const { page, problems } = await newPage();
    await page.goto(`${base}/audit`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await rows(page).first().waitFor();

    // The field's schema.table.column with its data source, linked to the field's page; users by name.
    const confirmed = rows(page).filter({ hasText: 'field.confirmed' }).filter({ hasText: 'public.customer.email' });
    await confirmed.waitFor();
    const link = confirmed.getByRole('link', { name: 'public.customer.email' });
    assert.equal(await link.getAttribute('href'), `/fields/${emailId}`);
    assert.match(
      await confirmed.locator('td.target').innerText(),
      /public\.customer\.email in Pagila\s+field [0-9a-f]{8}…/,
    );
    await rows(page).filter({ hasText: 'user.created' }).locator('td.target', { hasText: 'rita-reviewer' }).waitFor();

    await filter(page, { action: 'field.*' }, 3);
    assert.deepEqual((await actions(page)).sort(), ['field.confirmed', 'field.confirmed', 'field.deferred']);

    await filter(page, { action: 'test_*' }, 1);
    assert.deepEqual(await actions(page), ['test_event']);

    await filter(page, { actor: 'rita-reviewer' }, 4);
    assert.deepEqual((await actions(page)).sort(), [
      'auth.login',
      'field.confirmed',
      'field.confirmed',
      'field.deferred',
    ]);
    assert.deepEqual(new Set(await rows(page).locator('td:nth-child(3)').allInnerTexts()), new Set(['rita-reviewer']));

    await filter(page, { target: 'customer.email' }, 1);
    assert.match(await rows(page).first().innerText(), /field\.confirmed[\s\S]*public\.customer\.email in Pagila/);

    await filter(page, { action: 'field.*', target: 'pagila' }, 3);
    await assertAccessible(page);
    await screenshot(page, 'audit');

    // The export carries the filters and the names.
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await download;
    const text = await streamText(await file.createReadStream());
    const [header, ...records] = text
      .trim()
      .split('\r\n')
      .map((r) => r.split(','));
    assert.ok(header);
    assert.equal(records.length, 3);
    const names = records
      .map((r) => `${r[header.indexOf('target_name')]} in ${r[header.indexOf('target_datasource')]}`)
      .sort();
    assert.deepEqual(names, [
      'public.customer.email in Pagila',
      'public.customer.phone in Pagila',
      'public.staff.username in Pagila',
    ]);

    // A * that is not at the end is answered with a problem the page shows, and the rows stay as they were.
    await page.getByLabel('Action').fill('*.confirmed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('[data-code="validation_failed"]').waitFor();
    assert.equal(await rows(page).count(), 3);
    assert.deepEqual(problems, []);
  });

  async function assertAccessible(page: Page): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations, null, 1));
  }
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
