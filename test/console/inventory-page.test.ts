/**
 * The inventory report and the queue's spreadsheet round trip as a person uses them (Debian's Chromium through
 * playwright-core, the real service on SQLite): the report's numbers, charts and tables, its print layout (no
 * navigation or buttons, the date and the instance kept), the queue's export with its filters, and the upload dialog
 * showing every refused row in a table, then applying a good file. Checked with axe. Writes the screenshots
 * docs/console/inventory.png and docs/console/upload-decisions.png show.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminToken, bearer, buildTestApp, createUser, type TestApp } from '../helpers/app.js';
import { createDatasource, importOk } from '../modules/fields/factories.js';
import { ensureConsoleBuilt, launchBrowser, screenshot, seriousViolations, watchedPage } from './harness.js';

describe('console inventory report and decisions upload [sqlite]', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let closeBrowser: () => Promise<void>;
  let crm: string;
  let crmIds: string[];
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    t = await buildTestApp('sqlite');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const token = await adminToken(t.app);
    crm = await createDatasource(t.app, token, 'CRM');
    const billing = await createDatasource(t.app, token, 'Billing');
    crmIds = (
      await importOk(t.app, token, crm, [
        {
          table_name: 'public.customer',
          field_name: 'email',
          data_type: 'text',
          classification_chain_path: 'Personal/Contact/Email address',
          level: 'L4',
        },
        {
          table_name: 'public.customer',
          field_name: 'phone',
          data_type: 'text',
          classification_chain_path: 'Personal/Contact/Email address',
          level: 'L4',
        },
        {
          table_name: 'public.customer',
          field_name: 'id',
          data_type: 'uuid',
          classification_chain_path: 'Technical/Record ID',
          level: 'L1',
        },
        {
          table_name: 'public.customer',
          field_name: 'created_at',
          data_type: 'timestamp',
          classification_chain_path: 'Technical/Timestamp',
          level: 'L1',
        },
      ])
    ).field_ids;
    await importOk(t.app, token, billing, [
      {
        table_name: 'invoices',
        field_name: 'iban',
        data_type: 'text',
        classification_chain_path: 'Technical/Record ID',
        level: 'L5',
      },
      {
        table_name: 'invoices',
        field_name: 'amount',
        data_type: 'numeric',
        classification_chain_path: 'Technical/Record ID',
        level: 'L2',
      },
    ]);
    const rita = await createUser(t.app, ['operator'], { token, username: 'rita-reviewer' });
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/v1/classify/fields/${crmIds[2]}/confirm`,
          headers: bearer(rita.token),
          payload: {},
        })
      ).statusCode,
      200,
    );
    // The outlier model's verdict, as the metrics worker would store it: one unreviewed field likely misclassified.
    await t.database.db
      .updateTable('fields')
      .set({ severity: 'high', outlier_score: 0.93 })
      .where('id', '=', crmIds[1]!)
      .execute();
    ({ browser, close: closeBrowser } = await launchBrowser());
  });

  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser?.();
    await t?.close();
  });

  async function signIn(page: Page, path: string, heading: string): Promise<void> {
    await page.goto(`${base}${path}`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  }

  async function assertAccessible(page: Page): Promise<void> {
    const violations = await seriousViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations, null, 1));
  }

  it('shows totals, levels, data sources and tags with charts and tables, and prints without the console around it', async () => {
    const { page, problems } = await watchedPage(browser, contexts);
    await signIn(page, '/inventory', 'Inventory report');
    await page.getByTestId('total-fields').waitFor();
    assert.equal(await page.getByTestId('total-fields').innerText(), '6');
    const meta = await page.getByTestId('report-meta').innerText();
    assert.match(meta, new RegExp(`FieldLens at ${new URL(base).host.replace(/\./g, '\\.')}`));
    assert.match(meta, /generated .*\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);

    const levelRows = await page.getByTestId('by-level').locator('tbody tr').allInnerTexts();
    assert.equal(levelRows.length, 5);
    assert.match(levelRows[0]!, /L1[\s\S]*\b2\b[\s\S]*\b1\b[\s\S]*50 %/);
    const crmRow = page.getByTestId('by-datasource').locator('tbody tr', { hasText: 'CRM' });
    // L1 L2 L3 L4 L5, fields, confirmed share, high risk.
    assert.deepEqual(
      (await crmRow.locator('td').allInnerTexts()).map((s) => s.trim()),
      ['2', '0', '0', '2', '0', '4', '25 %', '1'],
    );
    const tagRows = await page.getByTestId('by-tag').locator('tbody tr th').allInnerTexts();
    assert.deepEqual(tagRows, ['Technical/Record ID', 'Personal/Contact/Email address', 'Technical/Timestamp']);
    assert.equal(await page.locator('svg.report-chart[role="img"]').count(), 4);
    await assertAccessible(page);
    await screenshot(page, 'inventory');

    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.top').isVisible(), false, 'no navigation in print');
    assert.equal(
      await page.getByRole('button', { name: 'Print or save as PDF' }).isVisible(),
      false,
      'no buttons in print',
    );
    assert.equal(await page.getByTestId('report-meta').isVisible(), true, 'the date and the instance are printed');
    const pdf = await page.pdf({ format: 'A4' });
    assert.ok(pdf.byteLength > 10_000 && pdf.subarray(0, 5).toString() === '%PDF-', 'Print → PDF gives a document');
    await page.emulateMedia({ media: 'screen' });
    assert.deepEqual(problems, []);
  });

  it('exports the queue with its filters, and shows every refused row of an uploaded file before applying a good one', async () => {
    const { page, problems } = await watchedPage(browser, contexts, { acceptDownloads: true });
    await signIn(page, `/queue?datasource_id=${crm}&review_status=any`, 'Review queue');
    await page.locator('.queue .body .row').first().waitFor();

    const download = page.waitForEvent('download');
    await page.getByTestId('export-csv').click();
    const file = await download;
    const chunks: Buffer[] = [];
    for await (const chunk of await file.createReadStream()) chunks.push(Buffer.from(chunk as Buffer));
    const rows = parse(Buffer.concat(chunks).toString('utf8'), { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.map((r) => r.datasource).sort(),
      ['CRM', 'CRM', 'CRM', 'CRM'],
      'only the data source the queue is filtered on',
    );

    await page.getByRole('button', { name: 'Upload decisions…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upload decisions' });
    const bad = [
      'field_id,action,chain_path,level,reason',
      `${crmIds[0]},confirm,,L9,`,
      `${crmIds[1]},defer,,,`,
      'nope,confirm,,,',
    ].join('\r\n');
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'decisions.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    await dialog.getByRole('button', { name: 'Apply decisions' }).click();
    const errors = dialog.getByTestId('upload-errors');
    await errors.waitFor();
    assert.deepEqual(await errors.locator('tbody td.num').allInnerTexts(), ['2', '3', '4']);
    assert.match(await errors.locator('tbody tr').nth(1).innerText(), /a defer needs a reason/);
    await dialog.locator('[data-code="validation_failed"]').waitFor();
    await assertAccessible(page);
    await screenshot(page, 'upload-decisions');

    const good = [
      'field_id,action,chain_path,level,reason',
      `${crmIds[0]},confirm,,,`,
      `${crmIds[1]},defer,,,"Ask the CRM owner, then decide"`,
    ].join('\r\n');
    await dialog
      .getByLabel('CSV file')
      .setInputFiles({ name: 'decisions.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
    await dialog.getByRole('button', { name: 'Apply decisions' }).click();
    await page.getByText('Applied the file: 1 confirmed, 1 deferred, 0 rows without an action left alone.').waitFor();
    assert.equal(await dialog.count(), 0, 'the dialog closes once applied');
    const states = await t.database.db
      .selectFrom('fields')
      .select(['id', 'review_status'])
      .where('id', 'in', [crmIds[0]!, crmIds[1]!])
      .execute();
    assert.deepEqual(
      new Map(states.map((s) => [s.id, s.review_status])),
      new Map([
        [crmIds[0]!, 'confirmed'],
        [crmIds[1]!, 'deferred'],
      ]),
    );
    assert.deepEqual(problems, []);
  });
});
